/* appletOE as an application starts (libnx's appletInitialize): the proxy and its objects, the message queue and
 * its event (switchbrew "Applet Manager services": FocusStateChanged is message 15; an empty queue answers 128-3),
 * focus, modes, the applet resource user id (the process id), the desired language, the display version (from the
 * NACP) and EnsureSaveData. */
#include "ipc.h"
#include "tandem.h"

#define AM_NO_DATA_IN_CHANNEL 0x480u /* 128-2 */
#define AM_NO_MESSAGE 0x680u          /* 128-3 */
#define AM_INVALID_OFFSET 0x3EE80u    /* 128-503 */

static IpcReply reply;

static Handle object(Handle session, uint32_t command, const char *what) {
    IpcRequest r = ipc_blank_request();
    expect(what, ipc_command(session, command, 0, 0, &r, 0, &reply), RESULT_SUCCESS);
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
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(sm, 0, zero, 8, &r, 0, &reply) == 0, "RegisterClient");
    uint64_t name = ipc_service_name("appletOE");
    r = ipc_blank_request();
    expect("GetServiceHandle(appletOE)", ipc_command(sm, 1, &name, 8, &r, 0, &reply), RESULT_SUCCESS);
    Handle applet = reply.move_handles[0];

    r = ipc_blank_request();
    r.send_pid = 1;
    r.num_copy_handles = 1;
    r.copy_handles[0] = CURRENT_PROCESS_HANDLE;
    expect("OpenApplicationProxy", ipc_command(applet, 0, zero, 8, &r, 0, &reply), RESULT_SUCCESS);
    Handle proxy = reply.move_handles[0];

    print("-- messages\n");
    Handle state = object(proxy, 0, "GetCommonStateGetter");
    r = ipc_blank_request();
    expect("GetEventHandle", ipc_command(state, 0, 0, 0, &r, 0, &reply), RESULT_SUCCESS);
    check(reply.num_copy_handles == 1, "one copied handle");
    Handle event = reply.copy_handles[0];
    expect("the event, at start", wait_one(event, 0), RESULT_SUCCESS);
    r = ipc_blank_request();
    expect("ReceiveMessage", ipc_command(state, 1, 0, 0, &r, 4, &reply), RESULT_SUCCESS);
    print("message: ");
    print_u64(out_u32());
    print("\n");
    r = ipc_blank_request();
    expect("ReceiveMessage, queue empty", ipc_command(state, 1, 0, 0, &r, 4, &reply), AM_NO_MESSAGE);
    expect("the event, queue empty", wait_one(event, 0), RESULT_TIMED_OUT);

    print("-- state\n");
    r = ipc_blank_request();
    expect("GetCurrentFocusState", ipc_command(state, 9, 0, 0, &r, 1, &reply), RESULT_SUCCESS);
    print("focus: ");
    print_u64(reply.data[0]);
    print("\n");
    r = ipc_blank_request();
    expect("GetOperationMode", ipc_command(state, 5, 0, 0, &r, 1, &reply), RESULT_SUCCESS);
    print("operation mode: ");
    print_u64(reply.data[0]);
    print("\n");
    r = ipc_blank_request();
    expect("GetPerformanceMode", ipc_command(state, 6, 0, 0, &r, 4, &reply), RESULT_SUCCESS);
    print("performance mode: ");
    print_u64(out_u32());
    print("\n");

    Handle self = object(proxy, 1, "GetSelfController");
    uint8_t focus_mode[3] = {0, 0, 1};
    r = ipc_blank_request();
    expect("SetFocusHandlingMode", ipc_command(self, 13, focus_mode, 3, &r, 0, &reply), RESULT_SUCCESS);
    r = ipc_blank_request();
    expect("SetOutOfFocusSuspendingEnabled", ipc_command(self, 16, focus_mode + 2, 1, &r, 0, &reply), RESULT_SUCCESS);

    Handle window = object(proxy, 2, "GetWindowController");
    r = ipc_blank_request();
    expect("GetAppletResourceUserId", ipc_command(window, 1, 0, 0, &r, 8, &reply), RESULT_SUCCESS);
    uint64_t aruid = out_u64();
    uint64_t pid = 0;
    check(svc_get_process_id(&pid, CURRENT_PROCESS_HANDLE) == 0 && aruid == pid, "the ARUID is the process id");
    r = ipc_blank_request();
    expect("AcquireForegroundRights", ipc_command(window, 10, 0, 0, &r, 0, &reply), RESULT_SUCCESS);

    /* The rest of what libnx's appletInitialize gets: the audio and display controllers, the library applet
     * creator, the debug functions, and the suspended-tick event (never signalled: the application is never
     * suspended). */
    object(proxy, 3, "GetAudioController");
    object(proxy, 4, "GetDisplayController");
    object(proxy, 11, "GetLibraryAppletCreator");
    object(proxy, 1000, "GetDebugFunctions");
    r = ipc_blank_request();
    expect("GetAccumulatedSuspendedTickChangedEvent", ipc_command(self, 91, 0, 0, &r, 0, &reply), RESULT_SUCCESS);
    check(reply.num_copy_handles == 1, "an event");
    expect("the suspended-tick event, unsignalled", wait_one(reply.copy_handles[0], 0), RESULT_TIMED_OUT);

    print("-- application functions\n");
    Handle functions = object(proxy, 20, "GetApplicationFunctions");
    r = ipc_blank_request();
    expect("NotifyRunning", ipc_command(functions, 40, 0, 0, &r, 1, &reply), RESULT_SUCCESS);
    r = ipc_blank_request();
    expect("GetDesiredLanguage", ipc_command(functions, 21, 0, 0, &r, 8, &reply), RESULT_SUCCESS);
    char language[9] = {0};
    memcpy(language, reply.data, 8);
    print("desired language: ");
    print(language);
    print("\n");
    /* The NACP's display version (xtask packs this program with version 1.2.3), NUL padded to 16 bytes. */
    r = ipc_blank_request();
    expect("GetDisplayVersion", ipc_command(functions, 23, 0, 0, &r, 16, &reply), RESULT_SUCCESS);
    char version[17] = {0};
    memcpy(version, reply.data, 16);
    print("display version: ");
    print(version);
    print("\n");
    check(memcmp(version, "1.2.3\0\0\0\0\0\0\0\0\0\0\0", 16) == 0, "the NACP's display version");
    print("-- launch parameters\n");
    uint32_t kind = 2;
    r = ipc_blank_request();
    expect("PopLaunchParameter(preselected user)", ipc_command(functions, 1, &kind, 4, &r, 0, &reply), RESULT_SUCCESS);
    Handle storage = reply.move_handles[0];
    r = ipc_blank_request();
    expect("PopLaunchParameter(preselected user) again", ipc_command(functions, 1, &kind, 4, &r, 0, &reply),
           AM_NO_DATA_IN_CHANNEL);
    kind = 1;
    r = ipc_blank_request();
    expect("PopLaunchParameter(user channel)", ipc_command(functions, 1, &kind, 4, &r, 0, &reply),
           AM_NO_DATA_IN_CHANNEL);
    Handle accessor = object(storage, 0, "IStorage::Open");
    r = ipc_blank_request();
    expect("IStorageAccessor::GetSize", ipc_command(accessor, 0, 0, 0, &r, 8, &reply), RESULT_SUCCESS);
    check(out_u64() == 0x88, "LaunchParameterAccountPreselectedUser is 0x88 bytes");
    static uint8_t parameter[0x88];
    uint64_t offset = 0;
    r = ipc_blank_request();
    r.num_receives = 1;
    r.receives[0] = (IpcBuffer){(uint64_t)parameter, sizeof parameter};
    r.num_receive_list = 1; /* auto-select: the pointer side empty */
    expect("IStorageAccessor::Read", ipc_command(accessor, 11, &offset, 8, &r, 0, &reply), RESULT_SUCCESS);
    uint32_t magic, selected;
    uint64_t preselected[2];
    memcpy(&magic, parameter, 4);
    memcpy(&selected, parameter + 4, 4);
    memcpy(preselected, parameter + 8, 16);
    print("preselected user: magic ");
    print_hex(magic);
    print(", selected ");
    print_u64(selected);
    print(", user ");
    print_hex(preselected[0]);
    print("\n");
    offset = 0x100;
    expect("IStorageAccessor::Read past the end", ipc_command(accessor, 11, &offset, 8, &r, 0, &reply),
           AM_INVALID_OFFSET);
    check(svc_close_handle(accessor) == 0 && svc_close_handle(storage) == 0, "close the storage");

    uint64_t user[2] = {1, 0};
    r = ipc_blank_request();
    expect("EnsureSaveData(user 1)", ipc_command(functions, 20, user, 16, &r, 8, &reply), RESULT_SUCCESS);
    check(out_u64() == 0, "no more space needed");

    /* apm, which older libnx's appletInitialize opens: a session's performance configurations (kept per mode and
     * read back), the mode (normal: handheld), and apm's InvalidParameters for a third mode. */
    print("-- apm\n");
    name = ipc_service_name("apm");
    r = ipc_blank_request();
    expect("GetServiceHandle(apm)", ipc_command(sm, 1, &name, 8, &r, 0, &reply), RESULT_SUCCESS);
    Handle apm = reply.move_handles[0];
    r = ipc_blank_request();
    expect("GetPerformanceMode", ipc_command(apm, 1, 0, 0, &r, 4, &reply), RESULT_SUCCESS);
    check(out_u32() == 0, "normal (handheld)");
    Handle session = object(apm, 0, "OpenSession");
    uint32_t configuration[2] = {0, 0x92220008};
    r = ipc_blank_request();
    expect("SetPerformanceConfiguration", ipc_command(session, 0, configuration, 8, &r, 0, &reply), RESULT_SUCCESS);
    r = ipc_blank_request();
    expect("GetPerformanceConfiguration", ipc_command(session, 1, configuration, 4, &r, 4, &reply), RESULT_SUCCESS);
    check(out_u32() == 0x92220008, "the configuration set");
    uint32_t third_mode = 2;
    r = ipc_blank_request();
    expect("GetPerformanceConfiguration(mode 2)", ipc_command(session, 1, &third_mode, 4, &r, 4, &reply), 0x294u);
    svc_close_handle(session);
    svc_close_handle(apm);

    Handle handles[] = {event, functions, window, self, state, proxy, applet, sm};
    for (unsigned i = 0; i < sizeof handles / sizeof handles[0]; i++) check(svc_close_handle(handles[i]) == 0, "close");
    print("applet: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
