/* Asks sm: for a service Tandem does not have: the run must stop with a report naming the service, the command
 * and the caller's PC. */
#include "ipc.h"
#include "tandem.h"

int main(void) {
    Handle sm;
    uint64_t reserved = 0;
    IpcRequest r;
    IpcReply reply;
    memset(&r, 0, sizeof r);
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect");
    r.type = IPC_TYPE_REQUEST;
    r.send_pid = 1;
    r.data = &reserved;
    r.data_size = 8;
    check(ipc_call(sm, &r, 0, &reply) == 0 && reply.result == 0, "RegisterClient");
    print("asking for audout:u\n");
    uint64_t name = ipc_service_name("audout:u");
    r.command_id = 1;
    r.send_pid = 0;
    r.data = &name;
    ipc_call(sm, &r, 0, &reply);
    print("not reached\n");
    return 1;
}
