/* A server in guest code: a thread registers a service with sm: (RegisterService) and a named port
 * (ManageNamedPort), waits on them and its sessions with WaitSynchronization, accepts sessions and answers requests
 * with ReplyAndReceive; the main thread is its client.
 * Checks the kernel's copy of requests and replies (the process id filled in, copied handles, map-alias buffers,
 * pointer data into each side's receive list or the client's message buffer, results) and the results Horizon gives for names taken twice, full
 * ports and closed sessions. */
#include "ipc.h"
#include "tandem.h"

#define SM_ALREADY_REGISTERED 0x815u /* 21-4 */
#define SM_NOT_REGISTERED 0xE15u /* 21-7 */
#define CUSTOM_RESULT 0x1234u

static IpcReply reply;
static Handle ready_writable, ready_readable;

static Handle sm_session(void) {
    Handle sm;
    uint64_t reserved = 0;
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect");
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(sm, 0, &reserved, 8, &r, 0, &reply) == 0, "RegisterClient");
    return sm;
}

static Result register_service(Handle sm, const char *name, Handle *port) {
    struct {
        uint64_t name;
        uint8_t is_light, padding[3];
        int32_t max_sessions;
    } arguments = {ipc_service_name(name), 0, {0}, 4};
    IpcRequest r = ipc_blank_request();
    Result rc = ipc_command(sm, 2, &arguments, sizeof arguments, &r, 0, &reply);
    *port = rc ? 0 : reply.move_handles[0];
    return rc;
}

/* Where the server takes requests' pointer data, and the pointer data of its replies. */
static char received[0x100];
static const char pong[] = "pong from the server";
static const IpcBuffer receive = {(uint64_t)received, sizeof received};

/* Answers one request in this thread's message buffer. */
static void answer(void) {
    void *buffer = (void *)thread_local_area();
    IpcServerRequest request;
    ipc_parse_request(buffer, &request);
    uint64_t value = 0, argument;
    memcpy(&argument, request.data, 8);
    Handle copy = ready_readable;
    switch (request.command_id) {
    case 0: /* echo plus one */
        value = argument + 1;
        ipc_build_reply(buffer, request.type, 0, &value, 8, 0, 0, 0, 0, 0, &receive);
        break;
    case 1: /* the process id the kernel wrote */
        value = request.has_pid ? request.pid : ~0ull;
        ipc_build_reply(buffer, request.type, 0, &value, 8, 0, 0, 0, 0, 0, &receive);
        break;
    case 2: /* a copy of the ready event's readable handle */
        ipc_build_reply(buffer, request.type, 0, 0, 0, 1, &copy, 0, 0, 0, &receive);
        break;
    case 3: /* the sum of the bytes of the send buffer, read where the client has it */
        for (uint64_t i = 0; request.num_sends == 1 && i < request.sends[0].size; i++)
            value += ((const uint8_t *)request.sends[0].address)[i];
        ipc_build_reply(buffer, request.type, 0, &value, 8, 0, 0, 0, 0, 0, &receive);
        break;
    case 4: /* the length of the pointer data, read from the server's receive buffer */
        value = strlen(received);
        ipc_build_reply(buffer, request.type, 0, &value, 8, 0, 0, 0, 0, 0, &receive);
        break;
    case 5: { /* pointer data back, into the client's receive list */
        IpcBuffer reply_data = {(uint64_t)pong, sizeof pong};
        ipc_build_reply(buffer, request.type, 0, 0, 0, 0, 0, 0, 0, &reply_data, &receive);
        break;
    }
    default:
        ipc_build_reply(buffer, request.type, CUSTOM_RESULT, 0, 0, 0, 0, 0, 0, 0, &receive);
    }
}

static void server(void *argument) {
    (void)argument;
    Handle sm = sm_session();
    Handle handles[8];
    check(register_service(sm, "tdm:echo", &handles[0]) == 0, "RegisterService(tdm:echo)");
    check(svc_manage_named_port(&handles[1], "tdm:port", 2) == 0, "ManageNamedPort(tdm:port)");
    check(svc_signal_event(ready_writable) == 0, "ready");
    int32_t count = 2, closed = 0;
    Handle reply_to = 0;
    /* The first receive list: an empty reply to no one, left in the message buffer. */
    ipc_build_reply((void *)thread_local_area(), 0, 0, 0, 0, 0, 0, 0, 0, 0, &receive);
    while (closed < 3) {
        int32_t index = -1;
        /* With nothing to reply, wait as libstratosphere's servers do: WaitSynchronization on the ports and server
         * sessions (signalled by a session to accept, a request, or a closed client), then receive. */
        if (reply_to == 0) {
            check(svc_wait_synchronization(&index, handles, count, -1) == 0 && index >= 0, "WaitSynchronization");
        }
        Result rc = svc_reply_and_receive(&index, handles, count, reply_to, -1);
        reply_to = 0;
        if (rc == RESULT_SESSION_CLOSED) {
            svc_close_handle(handles[index]);
            handles[index] = handles[--count];
            closed++;
            continue;
        }
        check(rc == 0 && index >= 0, "ReplyAndReceive");
        if (index < 2) {
            check(svc_accept_session(&handles[count], handles[index]) == 0, "AcceptSession");
            count++;
            continue;
        }
        answer();
        reply_to = handles[index];
    }
    svc_close_handle(handles[0]);
    svc_close_handle(handles[1]);
    svc_close_handle(sm);
}

/* Command `command` with the 8 bytes at `argument`, returning the kernel's result (which `ipc_command` would count
 * as a failure when it refuses the request). */
static Result kernel_call(Handle session, IpcRequest *r, uint32_t command, uint64_t *argument, uint32_t out_size) {
    r->type = IPC_TYPE_REQUEST;
    r->command_id = command;
    r->data = argument;
    r->data_size = 8;
    return ipc_call(session, r, out_size, &reply);
}

/* A client thread of the one-request-at-a-time check: sends `value` to command 0 (echo plus one). */
typedef struct {
    Thread thread;
    Handle session;
    uint64_t value, answer;
    Result result;
} Client;

static void client(void *argument) {
    Client *c = argument;
    IpcReply own;
    IpcRequest r = ipc_blank_request();
    c->result = ipc_command(c->session, 0, &c->value, 8, &r, 8, &own);
    memcpy(&c->answer, own.data, 8);
}

/* A client thread that copies the current-thread pseudo-handle in its request; `value` gets its thread id. */
static void pseudo_handle_client(void *argument) {
    Client *c = argument;
    svc_get_thread_id(&c->value, CURRENT_THREAD_HANDLE);
    IpcReply own;
    IpcRequest r = ipc_blank_request();
    r.num_copy_handles = 1;
    r.copy_handles[0] = CURRENT_THREAD_HANDLE;
    c->result = ipc_command(c->session, 0, &c->value, 8, &r, 8, &own);
}

/* A client thread whose request may fail: `result` gets the kernel's answer. */
static void failing_client(void *argument) {
    Client *c = argument;
    IpcRequest r = ipc_blank_request();
    c->result = kernel_call(c->session, &r, 0, &c->value, 8);
}

static uint8_t client_stacks[2][0x2000] __attribute__((aligned(16)));

/* The main thread serves a session two client threads send on at once: a server session hands out one request
 * until it is answered (mesosphère's KServerSession: not signalled while a request is current). */
static void one_request_at_a_time(void) {
    print("-- one request at a time\n");
    Handle port, session, server_session;
    expect("ManageNamedPort(tdm:one)", svc_manage_named_port(&port, "tdm:one", 1), RESULT_SUCCESS);
    expect("ConnectToNamedPort(tdm:one)", svc_connect_to_named_port(&session, "tdm:one"), RESULT_SUCCESS);
    expect("AcceptSession", svc_accept_session(&server_session, port), RESULT_SUCCESS);
    static Client clients[2];
    for (int i = 0; i < 2; i++) {
        clients[i] = (Client){.session = session, .value = 100u * (i + 1), .result = ~0u};
        check(thread_create(&clients[i].thread, client, &clients[i], client_stacks[i] + sizeof client_stacks[i], 40,
                            CORE_USE_PROCESS_VALUE) == 0 &&
                  thread_start(&clients[i].thread) == 0,
              "a client thread");
    }
    svc_sleep_thread(1000000); /* both send and wait for their replies */
    ipc_build_reply((void *)thread_local_area(), 0, 0, 0, 0, 0, 0, 0, 0, 0, &receive);
    int32_t index = -1;
    expect("ReplyAndReceive: a request", svc_reply_and_receive(&index, &server_session, 1, 0, 0), RESULT_SUCCESS);
    expect("ReplyAndReceive again before replying: nothing", svc_reply_and_receive(&index, &server_session, 1, 0, 0),
           RESULT_TIMED_OUT);
    answer();
    /* The handle list is checked before the reply goes: with a bad one, no reply is sent. A failed reply leaves
     * the index at -1. */
    Handle bad_list[2] = {server_session, 0xFFFF1234u};
    expect("ReplyAndReceive with a bad handle in its list", svc_reply_and_receive(&index, bad_list, 2, server_session, 0),
           RESULT_INVALID_HANDLE);
    index = 5;
    expect("ReplyAndReceive replying to a port", svc_reply_and_receive(&index, &server_session, 1, port, 0),
           RESULT_INVALID_HANDLE);
    check(index == -1, "the index is -1 after a failed reply");
    expect("ReplyAndReceive: the reply, and the other request",
           svc_reply_and_receive(&index, &server_session, 1, server_session, 0), RESULT_SUCCESS);
    answer();
    expect("ReplyAndReceive: the other reply", svc_reply_and_receive(&index, &server_session, 0, server_session, 0),
           RESULT_TIMED_OUT);
    for (int i = 0; i < 2; i++) {
        expect("a client thread ends", thread_join(&clients[i].thread), RESULT_SUCCESS);
        check(clients[i].result == 0 && clients[i].answer == clients[i].value + 1, "each client its own answer");
    }
    /* The current-thread pseudo-handle in a request names the client's thread, though the server takes the
     * request later, from its own thread. */
    clients[0] = (Client){.session = session, .result = ~0u};
    check(thread_create(&clients[0].thread, pseudo_handle_client, &clients[0], client_stacks[0] + sizeof client_stacks[0],
                        40, CORE_USE_PROCESS_VALUE) == 0 &&
              thread_start(&clients[0].thread) == 0,
          "a client thread copying its pseudo-handle");
    svc_sleep_thread(1000000);
    expect("ReplyAndReceive: its request", svc_reply_and_receive(&index, &server_session, 1, 0, 0), RESULT_SUCCESS);
    IpcServerRequest request;
    ipc_parse_request((void *)thread_local_area(), &request);
    uint64_t copied_id = 0;
    check(request.num_copy_handles == 1 && svc_get_thread_id(&copied_id, request.copy_handles[0]) == 0 &&
              copied_id == clients[0].value,
          "the copied pseudo-handle names the client thread");
    answer();
    expect("ReplyAndReceive: its reply", svc_reply_and_receive(&index, &server_session, 0, server_session, 0),
           RESULT_TIMED_OUT);
    expect("the client thread ends", thread_join(&clients[0].thread), RESULT_SUCCESS);
    check(request.num_copy_handles != 1 || svc_close_handle(request.copy_handles[0]) == 0, "close the copy");
    /* A request queued on a session whose client handle another thread then closes: ReceiveRequest answers
     * SessionClosed, not the request (mesosphère checks the client first, and leaves a queued synchronous request
     * unanswered); closing the server session then ends the client's wait with SessionClosed. */
    clients[1] = (Client){.session = session, .value = 5, .result = ~0u};
    check(thread_create(&clients[1].thread, failing_client, &clients[1], client_stacks[1] + sizeof client_stacks[1],
                        40, CORE_USE_PROCESS_VALUE) == 0 &&
              thread_start(&clients[1].thread) == 0,
          "a client thread");
    svc_sleep_thread(1000000);
    expect("close the client handle under a queued request", svc_close_handle(session), RESULT_SUCCESS);
    expect("ReplyAndReceive on a session whose client closed", svc_reply_and_receive(&index, &server_session, 1, 0, 0),
           RESULT_SESSION_CLOSED);
    check(index == 0, "the index names the session");
    svc_sleep_thread(1000000);
    check(clients[1].result == ~0u, "the queued request is not answered");
    expect("close the server session", svc_close_handle(server_session), RESULT_SUCCESS);
    expect("the client thread ends", thread_join(&clients[1].thread), RESULT_SUCCESS);
    expect("its request", clients[1].result, RESULT_SESSION_CLOSED);
    Handle none;
    check(svc_manage_named_port(&none, "tdm:one", 0) == 0 && svc_close_handle(port) == 0,
          "close tdm:one");
}

static uint8_t server_stack[0x4000] __attribute__((aligned(16)));
static uint8_t bytes[256];

int main(void) {
    check(svc_create_event(&ready_writable, &ready_readable) == 0, "CreateEvent");
    Thread thread;
    check(thread_create(&thread, server, 0, server_stack + sizeof server_stack, 40, CORE_USE_PROCESS_VALUE) == 0,
          "CreateThread");
    check(thread_start(&thread) == 0, "StartThread");
    expect("the server is ready", wait_one(ready_readable, -1), RESULT_SUCCESS);

    Handle sm = sm_session(), port;
    expect("RegisterService(tdm:echo) again", register_service(sm, "tdm:echo", &port), SM_ALREADY_REGISTERED);
    expect("RegisterService(set), a host service", register_service(sm, "set", &port), SM_ALREADY_REGISTERED);
    expect("ManageNamedPort(tdm:port) again", svc_manage_named_port(&port, "tdm:port", 2), RESULT_INVALID_STATE);

    uint64_t name = ipc_service_name("tdm:echo");
    IpcRequest r = ipc_blank_request();
    expect("GetServiceHandle(tdm:echo)", ipc_command(sm, 1, &name, 8, &r, 0, &reply), RESULT_SUCCESS);
    Handle echo = reply.move_handles[0];
    uint64_t value = 41;
    r = ipc_blank_request();
    expect("echo", ipc_command(echo, 0, &value, 8, &r, 8, &reply), RESULT_SUCCESS);
    memcpy(&value, reply.data, 8);
    print("echo 41: ");
    print_u64(value);
    print("\n");
    uint64_t pid = 0;
    r = ipc_blank_request();
    r.send_pid = 1;
    expect("the process id", ipc_command(echo, 1, &value, 8, &r, 8, &reply), RESULT_SUCCESS);
    memcpy(&value, reply.data, 8);
    check(svc_get_process_id(&pid, CURRENT_PROCESS_HANDLE) == 0 && value == pid, "the kernel's process id");
    r = ipc_blank_request();
    expect("a copied handle", ipc_command(echo, 2, &value, 8, &r, 0, &reply), RESULT_SUCCESS);
    check(reply.num_copy_handles == 1 && reply.copy_handles[0] != ready_readable, "a new handle");
    expect("waiting on the copied handle", wait_one(reply.copy_handles[0], 0), RESULT_SUCCESS);
    check(svc_close_handle(reply.copy_handles[0]) == 0, "close the copy");
    for (int i = 0; i < 256; i++) bytes[i] = (uint8_t)i;
    r = ipc_blank_request();
    r.num_sends = 1;
    r.sends[0] = (IpcBuffer){(uint64_t)bytes, sizeof bytes};
    expect("a send buffer", ipc_command(echo, 3, &value, 8, &r, 8, &reply), RESULT_SUCCESS);
    memcpy(&value, reply.data, 8);
    print("sum of 0..255: ");
    print_u64(value);
    print("\n");
    r = ipc_blank_request();
    expect("a command the server refuses", ipc_command(echo, 9, &value, 8, &r, 0, &reply), CUSTOM_RESULT);
    static const char ping[] = "ping through a pointer buffer";
    r = ipc_blank_request();
    r.num_statics = 1;
    r.statics[0] = (IpcBuffer){(uint64_t)ping, sizeof ping};
    expect("pointer data to the server", ipc_command(echo, 4, &value, 8, &r, 8, &reply), RESULT_SUCCESS);
    memcpy(&value, reply.data, 8);
    check(value == sizeof ping - 1, "the server read the pointer data");
    static char back[0x40];
    r = ipc_blank_request();
    r.num_receive_list = 1;
    r.receive_list[0] = (IpcBuffer){(uint64_t)back, sizeof back};
    expect("pointer data from the server", ipc_command(echo, 5, &value, 8, &r, 0, &reply), RESULT_SUCCESS);
    print("pointer reply: ");
    print(back);
    print("\n");
    check(memcmp(back, "pong from the server", 21) == 0, "the client's receive list has the server's data");
    /* Receive-list mode 1: the server's pointer data lands in this thread's message buffer, at the first 16-byte
     * boundary after the reply (mesosphère's ReceiveList::GetBuffer), and the reply's descriptor says where. */
    r = ipc_blank_request();
    r.receive_into_message_buffer = 1;
    expect("pointer data into the message buffer", ipc_command(echo, 5, &value, 8, &r, 0, &reply), RESULT_SUCCESS);
    const uint32_t *message = (const uint32_t *)thread_local_area();
    uint64_t reply_end = (uint64_t)message + 4 * (2 + 2 * (message[0] >> 16 & 0xf) + (message[1] & 0x3ff));
    check(reply.num_statics == 1 && reply.statics[0].address == ((reply_end + 15) & ~15ull) &&
              reply.statics[0].size == sizeof pong,
          "the pointer data follows the reply");
    check(memcmp((const void *)reply.statics[0].address, "pong from the server", 21) == 0,
          "the message buffer has the server's data");
    /* A receive-list entry too small for the pointer data: the client's request fails with OutOfResource (the
     * server's reply still succeeds, and it goes on serving). */
    static char small[8];
    r = ipc_blank_request();
    r.num_receive_list = 1;
    r.receive_list[0] = (IpcBuffer){(uint64_t)small, sizeof small};
    expect("pointer data into a receive buffer too small", kernel_call(echo, &r, 5, &value, 0), RESULT_OUT_OF_RESOURCE);
    /* Pointer data larger than the server's receive buffer: this request fails with OutOfResource, and the server,
     * which never saw it, goes on waiting for the next. */
    static char large[0x200];
    r = ipc_blank_request();
    r.num_statics = 1;
    r.statics[0] = (IpcBuffer){(uint64_t)large, sizeof large};
    expect("pointer data larger than the server's receive buffer", kernel_call(echo, &r, 4, &value, 8),
           RESULT_OUT_OF_RESOURCE);
    value = 41;
    r = ipc_blank_request();
    expect("the server answers after that", ipc_command(echo, 0, &value, 8, &r, 8, &reply), RESULT_SUCCESS);
    memcpy(&value, reply.data, 8);
    check(value == 42, "41 + 1");

    Handle direct, second, third;
    expect("ConnectToNamedPort(tdm:port)", svc_connect_to_named_port(&direct, "tdm:port"), RESULT_SUCCESS);
    value = 7;
    r = ipc_blank_request();
    expect("echo on the named port", ipc_command(direct, 0, &value, 8, &r, 8, &reply), RESULT_SUCCESS);
    memcpy(&value, reply.data, 8);
    check(value == 8, "7 + 1");
    expect("ConnectToNamedPort(tdm:port), second", svc_connect_to_named_port(&second, "tdm:port"), RESULT_SUCCESS);
    expect("ConnectToNamedPort(tdm:port), past its 2 sessions", svc_connect_to_named_port(&third, "tdm:port"),
           RESULT_OUT_OF_SESSIONS);

    check(svc_close_handle(echo) == 0 && svc_close_handle(direct) == 0 && svc_close_handle(second) == 0, "close");
    expect("the server ends when its clients are gone", thread_join(&thread), RESULT_SUCCESS);
    expect("ConnectToNamedPort(tdm:port) after it closed", svc_connect_to_named_port(&third, "tdm:port"),
           RESULT_NOT_FOUND);
    uint64_t unregistered = ipc_service_name("tdm:none");
    r = ipc_blank_request();
    expect("UnregisterService(tdm:none)", ipc_command(sm, 3, &unregistered, 8, &r, 0, &reply), SM_NOT_REGISTERED);
    Handle again;
    expect("RegisterService(tdm:late)", register_service(sm, "tdm:late", &again), RESULT_SUCCESS);
    uint64_t late = ipc_service_name("tdm:late");
    r = ipc_blank_request();
    expect("UnregisterService(tdm:late)", ipc_command(sm, 3, &late, 8, &r, 0, &reply), RESULT_SUCCESS);
    r = ipc_blank_request();
    expect("UnregisterService(tdm:late) again", ipc_command(sm, 3, &late, 8, &r, 0, &reply), SM_NOT_REGISTERED);
    Handle once_more;
    expect("RegisterService(tdm:late) after", register_service(sm, "tdm:late", &once_more), RESULT_SUCCESS);
    check(svc_close_handle(again) == 0 && svc_close_handle(once_more) == 0, "close the ports");
    svc_close_handle(sm);
    one_request_at_a_time();
    print("server: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
