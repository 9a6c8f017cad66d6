/* IPC: named ports, sm:, set, set:sys and lm through CMIF and TIPC, domains, control commands, and malformed or
 * hostile messages. Every expected value is Horizon's: result codes from switchbrew's "Error codes" and
 * Atmosphère's result definitions (kernel module 1, sf module 10, hipc module 11, sm module 21), the language list
 * from switchbrew's "Settings services". */
#include "ipc.h"
#include "tandem.h"

#define SF_INVALID_HEADER_SIZE 0x1940Au   /* 10-202 */
#define SF_INVALID_IN_HEADER 0x1A60Au     /* 10-211 */
#define SF_INVALID_IN_OBJECT 0x1DE0Au     /* 10-239 */
#define HIPC_UNKNOWN_COMMAND_TYPE 0x3260Bu /* 11-403 */
#define HIPC_DOMAIN_OBJECT_NOT_FOUND 0x3D80Bu /* 11-492 */
#define SM_INVALID_CLIENT 0x415u          /* 21-2 */
#define SM_OUT_OF_SESSIONS 0x615u         /* 21-3 */
#define SM_INVALID_SERVICE_NAME 0xC15u    /* 21-6 */

static IpcRequest request(uint32_t command_id) {
    IpcRequest r;
    memset(&r, 0, sizeof r);
    r.type = IPC_TYPE_REQUEST;
    r.command_id = command_id;
    return r;
}

/* The request as prepared; its reply is `out_size` bytes. Returns the service's result. */
static Result call(Handle session, IpcRequest *r, uint32_t out_size, IpcReply *reply) {
    return ipc_command(session, r->command_id, r->data, r->data_size, r, out_size, reply);
}

/* TIPC GetServiceHandle(`service`) on the sm: session `sm` (its name stays in `*name`, which the request points
 * at); the reply in `reply`. */
static Result tipc_get_service(Handle sm, const char *service, uint64_t *name, IpcRequest *r, IpcReply *reply) {
    *r = request(0);
    r->type = IPC_TYPE_TIPC(1);
    *name = ipc_service_name(service);
    r->data = name;
    r->data_size = 8;
    return call(sm, r, 0, reply);
}

static uint32_t u32_at(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t u64_at(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void print_code(uint64_t code) {
    char text[9];
    memcpy(text, &code, 8);
    text[8] = 0;
    print(text);
}

static Handle get_service(Handle sm, const char *name) {
    IpcRequest r = request(1);
    uint64_t raw = ipc_service_name(name);
    r.data = &raw;
    r.data_size = 8;
    IpcReply reply;
    Result rc = call(sm, &r, 0, &reply);
    print("GetServiceHandle(");
    print(name);
    print(")");
    expect("", rc, RESULT_SUCCESS);
    check(reply.num_move_handles == 1, "one moved handle");
    return reply.move_handles[0];
}

static uint8_t page_buffer[0x1000] __attribute__((aligned(0x1000)));
static uint64_t codes[32];

int main(void) {
    Handle sm, bad;
    print("-- ports\n");
    expect("ConnectToNamedPort(sm:)", svc_connect_to_named_port(&sm, "sm:"), RESULT_SUCCESS);
    expect("ConnectToNamedPort(nosuchport)", svc_connect_to_named_port(&bad, "nosuchport"), RESULT_NOT_FOUND);
    expect("ConnectToNamedPort(12 characters)", svc_connect_to_named_port(&bad, "abcdefghijkl"), RESULT_OUT_OF_RANGE);
    expect("ConnectToNamedPort(unmapped)", svc_connect_to_named_port(&bad, (const char *)8), RESULT_INVALID_POINTER);

    print("-- sm:\n");
    IpcReply reply;
    IpcRequest r = request(1);
    uint64_t name = ipc_service_name("set");
    r.data = &name;
    r.data_size = 8;
    expect("GetServiceHandle before RegisterClient", call(sm, &r, 0, &reply), SM_INVALID_CLIENT);
    uint64_t reserved = 0;
    r = request(0);
    r.data = &reserved;
    r.data_size = 8;
    expect("RegisterClient without a process id", call(sm, &r, 0, &reply), SF_INVALID_HEADER_SIZE);
    r.send_pid = 1;
    expect("RegisterClient", call(sm, &r, 0, &reply), RESULT_SUCCESS);
    r = request(1);
    name = 0;
    r.data = &name;
    r.data_size = 8;
    expect("GetServiceHandle(empty name)", call(sm, &r, 0, &reply), SM_INVALID_SERVICE_NAME);
    name = ipc_service_name("lm") | (uint64_t)'x' << 24;
    expect("GetServiceHandle(character after the NUL)", call(sm, &r, 0, &reply), SM_INVALID_SERVICE_NAME);

    print("-- set\n");
    Handle set = get_service(sm, "set");
    r = request(0);
    expect("GetLanguageCode", call(set, &r, 8, &reply), RESULT_SUCCESS);
    print("language: ");
    print_code(u64_at(reply.data));
    print("\n");
    r = request(3);
    expect("GetAvailableLanguageCodeCount", call(set, &r, 4, &reply), RESULT_SUCCESS);
    check(u32_at(reply.data) == 15, "15 languages before 4.0.0's list");
    r = request(6);
    expect("GetAvailableLanguageCodeCount2", call(set, &r, 4, &reply), RESULT_SUCCESS);
    uint32_t count = u32_at(reply.data);
    check(count == 18, "18 languages");
    r = request(5);
    r.num_receives = 1;
    r.receives[0] = (IpcBuffer){(uint64_t)codes, sizeof codes};
    expect("GetAvailableLanguageCodes2", call(set, &r, 4, &reply), RESULT_SUCCESS);
    count = u32_at(reply.data);
    print("languages:");
    for (uint32_t i = 0; i < count; i++) {
        print(" ");
        print_code(codes[i]);
    }
    print("\n");
    r = request(1); /* into a receive-list entry with room for 4 codes */
    r.num_receive_list = 1;
    r.receive_list[0] = (IpcBuffer){(uint64_t)codes, 4 * 8};
    memset(codes, 0, sizeof codes);
    expect("GetAvailableLanguageCodes(room for 4)", call(set, &r, 4, &reply), RESULT_SUCCESS);
    check(u32_at(reply.data) == 4 && codes[3] == ipc_service_name("de") && codes[4] == 0, "4 codes written");
    r = request(5); /* the buffer missing */
    expect("GetAvailableLanguageCodes2 without its buffer", call(set, &r, 4, &reply), SF_INVALID_HEADER_SIZE);
    r = request(4);
    expect("GetRegionCode", call(set, &r, 4, &reply), RESULT_SUCCESS);
    print("region: ");
    print_u64(u32_at(reply.data));
    print("\n");

    print("-- set:sys\n");
    Handle setsys = get_service(sm, "set:sys");
    static uint8_t firmware[0x100];
    r = request(4);
    r.num_receive_list = 1;
    r.receive_list[0] = (IpcBuffer){(uint64_t)firmware, sizeof firmware};
    expect("GetFirmwareVersion2", call(setsys, &r, 0, &reply), RESULT_SUCCESS);
    print("firmware: ");
    print((const char *)firmware + 0x68);
    print(" on ");
    print((const char *)firmware + 0x8);
    print(", \"");
    print((const char *)firmware + 0x80);
    print("\"\n");
    check(firmware[0] == 18 && firmware[1] == 1 && firmware[2] == 0, "version bytes match the display version");

    print("-- lm\n");
    Handle lm = get_service(sm, "lm");
    r = request(0);
    r.send_pid = 1;
    r.data = &reserved;
    r.data_size = 8;
    expect("OpenLogger", call(lm, &r, 0, &reply), RESULT_SUCCESS);
    Handle logger = reply.move_handles[0];
    static uint8_t packet[0x40];
    const char *text = "hello from the guest through lm";
    uint32_t length = (uint32_t)strlen(text);
    packet[0x10] = 3; /* head and tail */
    packet[0x12] = 1; /* info (0x11 is padding) */
    uint32_t payload = 2 + length;
    memcpy(packet + 0x14, &payload, 4);
    packet[0x18] = 2; /* text chunk */
    packet[0x19] = (uint8_t)length;
    memcpy(packet + 0x1a, text, length);
    r = request(0);
    r.num_sends = 1;
    r.sends[0] = (IpcBuffer){(uint64_t)packet, 0x18 + payload};
    r.num_statics = 1; /* auto-select: the X side empty */
    expect("ILogger::Log", call(logger, &r, 0, &reply), RESULT_SUCCESS);

    print("-- domains and control\n");
    r = request(3);
    r.type = IPC_TYPE_CONTROL;
    expect("QueryPointerBufferSize(sm:)", call(sm, &r, 4, &reply), RESULT_SUCCESS);
    check((u32_at(reply.data) & 0xffff) == 0, "sm: has no pointer buffer");
    r = request(0);
    r.type = IPC_TYPE_CONTROL;
    expect("ConvertCurrentObjectToDomain(lm)", call(lm, &r, 4, &reply), RESULT_SUCCESS);
    uint32_t lm_object = u32_at(reply.data);
    print("lm's object id: ");
    print_u64(lm_object);
    print("\n");
    r = request(0);
    r.send_pid = 1;
    r.data = &reserved;
    r.data_size = 8;
    r.domain_command = IPC_DOMAIN_SEND;
    r.domain_object = lm_object;
    expect("OpenLogger in the domain", call(lm, &r, 0, &reply), RESULT_SUCCESS);
    check(reply.num_objects == 1 && reply.num_move_handles == 0, "an object id, no handle");
    uint32_t logger_object = reply.objects[0];
    print("logger's object id: ");
    print_u64(logger_object);
    print("\n");
    r = request(1);
    uint32_t destination = 1;
    r.data = &destination;
    r.data_size = 4;
    r.domain_command = IPC_DOMAIN_SEND;
    r.domain_object = logger_object;
    expect("ILogger::SetDestination in the domain", call(lm, &r, 0, &reply), RESULT_SUCCESS);
    r.num_in_objects = 1;
    r.in_objects[0] = 77;
    expect("a domain message passing object 77", call(lm, &r, 0, &reply), SF_INVALID_IN_OBJECT);
    r = request(0);
    r.domain_command = IPC_DOMAIN_CLOSE;
    r.domain_object = logger_object;
    expect("closing the logger object", call(lm, &r, 0, &reply), RESULT_SUCCESS);
    r = request(1);
    r.data = &destination;
    r.data_size = 4;
    r.domain_command = IPC_DOMAIN_SEND;
    r.domain_object = logger_object;
    expect("the closed object", call(lm, &r, 0, &reply), HIPC_DOMAIN_OBJECT_NOT_FOUND);
    r = request(2);
    r.type = IPC_TYPE_CONTROL;
    expect("CloneCurrentObject(set)", call(set, &r, 0, &reply), RESULT_SUCCESS);
    Handle set_clone = reply.move_handles[0];
    r = request(4);
    expect("GetRegionCode on the clone", call(set_clone, &r, 4, &reply), RESULT_SUCCESS);
    /* A domain's clone is a session to the same domain: an object opened through one is there through the other. */
    r = request(2);
    r.type = IPC_TYPE_CONTROL;
    expect("CloneCurrentObject(the lm domain)", call(lm, &r, 0, &reply), RESULT_SUCCESS);
    Handle lm_clone = reply.move_handles[0];
    r = request(0);
    r.send_pid = 1;
    r.data = &reserved;
    r.data_size = 8;
    r.domain_command = IPC_DOMAIN_SEND;
    r.domain_object = lm_object;
    expect("OpenLogger through the clone", call(lm_clone, &r, 0, &reply), RESULT_SUCCESS);
    uint32_t shared_logger = reply.num_objects == 1 ? reply.objects[0] : 0;
    r = request(1);
    r.data = &destination;
    r.data_size = 4;
    r.domain_command = IPC_DOMAIN_SEND;
    r.domain_object = shared_logger;
    expect("SetDestination on it through the first session", call(lm, &r, 0, &reply), RESULT_SUCCESS);

    print("-- TIPC\n");
    Handle sm_tipc;
    expect("ConnectToNamedPort(sm:)", svc_connect_to_named_port(&sm_tipc, "sm:"), RESULT_SUCCESS);
    r = request(0);
    r.type = IPC_TYPE_TIPC(0);
    r.send_pid = 1; /* TIPC's RegisterClient carries no data: the pid alone (libnx's _smTipcCmdInPid) */
    expect("TIPC RegisterClient", call(sm_tipc, &r, 0, &reply), RESULT_SUCCESS);
    expect("TIPC GetServiceHandle(set)", tipc_get_service(sm_tipc, "set", &name, &r, &reply), RESULT_SUCCESS);
    Handle set2 = reply.move_handles[0];
    r = request(0);
    expect("GetLanguageCode on it", call(set2, &r, 8, &reply), RESULT_SUCCESS);
    /* TIPC's RegisterService puts max_sessions before is_light (libnx's smRegisterServiceTipc), CMIF after. */
    struct {
        uint64_t name;
        int32_t max_sessions;
        uint8_t is_light, padding[3];
    } tipc_service = {ipc_service_name("tdm:tipc"), 0, 0, {0}};
    r = request(0);
    r.type = IPC_TYPE_TIPC(2);
    r.data = &tipc_service;
    r.data_size = sizeof tipc_service;
    expect("TIPC RegisterService(max_sessions 0)", call(sm_tipc, &r, 0, &reply), RESULT_OUT_OF_RANGE);
    tipc_service.max_sessions = 1;
    expect("TIPC RegisterService(max_sessions 1)", call(sm_tipc, &r, 0, &reply), RESULT_SUCCESS);
    Handle tipc_port = reply.move_handles[0];
    expect("TIPC GetServiceHandle(tdm:tipc)", tipc_get_service(sm_tipc, "tdm:tipc", &name, &r, &reply),
           RESULT_SUCCESS);
    Handle tipc_client = reply.move_handles[0];
    expect("TIPC GetServiceHandle(tdm:tipc) past its one session", call(sm_tipc, &r, 0, &reply), SM_OUT_OF_SESSIONS);
    check(svc_close_handle(tipc_client) == 0 && svc_close_handle(tipc_port) == 0, "close tdm:tipc's handles");

    print("-- malformed and hostile messages\n");
    r = request(0);
    r.type = 3; /* a legacy control message */
    expect("message type 3", call(set, &r, 0, &reply), HIPC_UNKNOWN_COMMAND_TYPE);
    r = request(0);
    r.magic = 0x12345678;
    expect("a wrong SFCI magic", call(set, &r, 0, &reply), SF_INVALID_IN_HEADER);
    r = request(0);
    r.data_words = 3;
    expect("data words too few for the CMIF header", call(set, &r, 0, &reply), SF_INVALID_HEADER_SIZE);
    r = request(0);
    r.data_words = 1023;
    expect("1023 data words (past the message buffer)", ipc_call(set, &r, 0, &reply), RESULT_MESSAGE_TOO_LARGE);
    r = request(5);
    r.num_receives = 1;
    r.receives[0] = (IpcBuffer){0x10, 0x100};
    expect("a receive buffer at an unmapped address", ipc_call(set, &r, 4, &reply), RESULT_INVALID_CURRENT_MEMORY);
    r.receives[0] = (IpcBuffer){(uint64_t)__tandem_mod0, 0x100};
    expect("a receive buffer in read-only memory", ipc_call(set, &r, 4, &reply), RESULT_INVALID_CURRENT_MEMORY);
    r = request(0);
    r.num_copy_handles = 1;
    r.copy_handles[0] = 0x1234;
    expect("copying a handle that does not exist", ipc_call(set, &r, 8, &reply), RESULT_INVALID_HANDLE);
    r = request(0);
    r.num_move_handles = 1;
    r.move_handles[0] = set;
    expect("moving away the session's own handle", ipc_call(set, &r, 8, &reply), RESULT_INVALID_HANDLE);
    r = request(0);
    expect("the session after that", call(set, &r, 8, &reply), RESULT_SUCCESS);
    /* A client moves no handle to a server (InvalidCombination); a copied 0 is no handle, passed as none. */
    r = request(0);
    r.num_move_handles = 1;
    r.move_handles[0] = setsys;
    expect("moving a handle to a server", ipc_call(set, &r, 8, &reply), RESULT_INVALID_COMBINATION);
    r = request(0);
    r.num_copy_handles = 1;
    r.copy_handles[0] = 0;
    expect("copying handle 0", call(set, &r, 8, &reply), RESULT_SUCCESS);
    r = request(0);
    expect("a request on a thread handle", ipc_call(__tandem_main_thread_handle, &r, 8, &reply),
           RESULT_INVALID_HANDLE);
    expect("a request on handle 0", ipc_call(0, &r, 8, &reply), RESULT_INVALID_HANDLE);
    r = request(0);
    r.type = IPC_TYPE_CLOSE;
    expect("Close(set clone)", ipc_call(set_clone, &r, 0, &reply), RESULT_SUCCESS);
    r = request(4);
    expect("a request after Close", ipc_call(set_clone, &r, 4, &reply), RESULT_SESSION_CLOSED);
    expect("CloseHandle(set clone)", svc_close_handle(set_clone), RESULT_SUCCESS);
    expect("a request on the closed handle", ipc_call(set_clone, &r, 4, &reply), RESULT_INVALID_HANDLE);

    print("-- user buffers\n");
    r = request(0);
    ipc_build(page_buffer, &r);
    expect("SendSyncRequestWithUserBuffer(misaligned)", svc_send_sync_request_with_user_buffer(page_buffer + 16, 0x1000, set),
           RESULT_INVALID_ADDRESS);
    expect("SendSyncRequestWithUserBuffer(size 0)", svc_send_sync_request_with_user_buffer(page_buffer, 0, set),
           RESULT_INVALID_SIZE);
    expect("SendSyncRequestWithUserBuffer", svc_send_sync_request_with_user_buffer(page_buffer, 0x1000, set),
           RESULT_SUCCESS);
    ipc_parse(page_buffer, IPC_TYPE_REQUEST, 0, 8, &reply);
    expect("its GetLanguageCode", reply.result, RESULT_SUCCESS);
    check(u64_at(reply.data) == ipc_service_name("en-US"), "the language code in the user buffer");

    Handle handles[] = {set, setsys, lm, logger, set2, sm_tipc, sm};
    for (uint32_t i = 0; i < sizeof handles / sizeof handles[0]; i++) check(svc_close_handle(handles[i]) == 0, "close");
    print("ipc: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
