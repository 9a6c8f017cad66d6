/* appletOE as an application starts: the proxy, the message queue and its event (switchbrew "Applet Manager
 * services": FocusStateChanged is message 15; an empty queue answers 128-3), focus, modes, the applet resource
 * user id (the process id), the desired language and EnsureSaveData. */
#include "ipc.h"
#include "tandem.h"

#define AM_NO_MESSAGE 0x680u /* 128-3 */

static IpcReply reply;

static void expect(const char *what, Result got, Result want) {
    print(what);
    print(": ");
    print_hex(got);
    print("\n");
    if (got != want) {
        print("FAIL: ");
        print(what);
        print(" should be ");
        print_hex(want);
        print("\n");
        check(0, what);
    }
}

static Result call(Handle session, uint32_t command, const void *data, uint32_t size, IpcRequest *r, uint32_t out) {
    r->type = IPC_TYPE_REQUEST;
    r->command_id = command;
    r->data = data;
    r->data_size = size;
    Result rc = ipc_call(session, r, out, &reply);
    check(rc == RESULT_SUCCESS, "the kernel takes the request");
    return rc ? rc : reply.result;
}

static IpcRequest plain(void) {
    IpcRequest r;
    memset(&r, 0, sizeof r);
    return r;
}

static Handle object(Handle session, uint32_t command, const char *what) {
    IpcRequest r = plain();
    expect(what, call(session, command, 0, 0, &r, 0), RESULT_SUCCESS);
    return reply.move_handles[0];
}

static uint64_t out_u64(void) {
    uint64_t v;
    memcpy(&v, reply.data, 8);
    return v;
}

static uint32_t out_u32(void) {
    uint32_t v;
    memcpy(&v, reply.data, 4);
    return v;
}

int main(void) {
    Handle sm;
    uint64_t zero[2] = {0, 0};
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect");
    IpcRequest r = plain();
    r.send_pid = 1;
    check(call(sm, 0, zero, 8, &r, 0) == 0, "RegisterClient");
    uint64_t name = ipc_service_name("appletOE");
    r = plain();
    expect("GetServiceHandle(appletOE)", call(sm, 1, &name, 8, &r, 0), RESULT_SUCCESS);
    Handle applet = reply.move_handles[0];

    r = plain();
    r.send_pid = 1;
    r.num_copy_handles = 1;
    r.copy_handles[0] = CURRENT_PROCESS_HANDLE;
    expect("OpenApplicationProxy", call(applet, 0, zero, 8, &r, 0), RESULT_SUCCESS);
    Handle proxy = reply.move_handles[0];

    print("-- messages\n");
    Handle state = object(proxy, 0, "GetCommonStateGetter");
    r = plain();
    expect("GetEventHandle", call(state, 0, 0, 0, &r, 0), RESULT_SUCCESS);
    check(reply.num_copy_handles == 1, "one copied handle");
    Handle event = reply.copy_handles[0];
    expect("the event, at start", wait_one(event, 0), RESULT_SUCCESS);
    r = plain();
    expect("ReceiveMessage", call(state, 1, 0, 0, &r, 4), RESULT_SUCCESS);
    print("message: ");
    print_u64(out_u32());
    print("\n");
    r = plain();
    expect("ReceiveMessage, queue empty", call(state, 1, 0, 0, &r, 4), AM_NO_MESSAGE);
    expect("the event, queue empty", wait_one(event, 0), RESULT_TIMED_OUT);

    print("-- state\n");
    r = plain();
    expect("GetCurrentFocusState", call(state, 9, 0, 0, &r, 1), RESULT_SUCCESS);
    print("focus: ");
    print_u64(reply.data[0]);
    print("\n");
    r = plain();
    expect("GetOperationMode", call(state, 5, 0, 0, &r, 1), RESULT_SUCCESS);
    print("operation mode: ");
    print_u64(reply.data[0]);
    print("\n");
    r = plain();
    expect("GetPerformanceMode", call(state, 6, 0, 0, &r, 4), RESULT_SUCCESS);
    print("performance mode: ");
    print_u64(out_u32());
    print("\n");

    Handle self = object(proxy, 1, "GetSelfController");
    uint8_t focus_mode[3] = {0, 0, 1};
    r = plain();
    expect("SetFocusHandlingMode", call(self, 13, focus_mode, 3, &r, 0), RESULT_SUCCESS);
    r = plain();
    expect("SetOutOfFocusSuspendingEnabled", call(self, 16, focus_mode + 2, 1, &r, 0), RESULT_SUCCESS);

    Handle window = object(proxy, 2, "GetWindowController");
    r = plain();
    expect("GetAppletResourceUserId", call(window, 1, 0, 0, &r, 8), RESULT_SUCCESS);
    uint64_t aruid = out_u64();
    uint64_t pid = 0;
    check(svc_get_process_id(&pid, CURRENT_PROCESS_HANDLE) == 0 && aruid == pid, "the ARUID is the process id");
    r = plain();
    expect("AcquireForegroundRights", call(window, 10, 0, 0, &r, 0), RESULT_SUCCESS);

    print("-- application functions\n");
    Handle functions = object(proxy, 20, "GetApplicationFunctions");
    r = plain();
    expect("NotifyRunning", call(functions, 40, 0, 0, &r, 1), RESULT_SUCCESS);
    r = plain();
    expect("GetDesiredLanguage", call(functions, 21, 0, 0, &r, 8), RESULT_SUCCESS);
    char language[9] = {0};
    memcpy(language, reply.data, 8);
    print("desired language: ");
    print(language);
    print("\n");
    uint64_t user[2] = {1, 0};
    r = plain();
    expect("EnsureSaveData(user 1)", call(functions, 20, user, 16, &r, 8), RESULT_SUCCESS);
    check(out_u64() == 0, "no more space needed");

    Handle handles[] = {event, functions, window, self, state, proxy, applet, sm};
    for (unsigned i = 0; i < sizeof handles / sizeof handles[0]; i++) check(svc_close_handle(handles[i]) == 0, "close");
    print("applet: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
