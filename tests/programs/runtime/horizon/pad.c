#include "pad.h"
#include "ipc.h"
#include "tandem.h"

/* libnx's order: sm, CreateAppletResource, GetSharedMemoryHandle, the mapping, SetSupportedNpadStyleSet,
 * SetSupportedNpadIdType, ActivateNpadWithRevision; then hidInitializeTouchScreen's ActivateTouchScreen. Raw data
 * ends with the applet resource user id (0). */
void pad_open(uint32_t styles) {
    static IpcReply reply;
    Handle sm;
    uint64_t zero[2] = {0, 0};
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect to sm:");
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(sm, 0, zero, 8, &r, 0, &reply) == 0, "RegisterClient");
    uint64_t name = ipc_service_name("hid");
    r = ipc_blank_request();
    check(ipc_command(sm, 1, &name, 8, &r, 0, &reply) == 0, "GetServiceHandle(hid)");
    Handle hid = reply.move_handles[0];
    r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(hid, 0, zero, 8, &r, 0, &reply) == 0, "CreateAppletResource");
    Handle resource = reply.move_handles[0];
    r = ipc_blank_request();
    check(ipc_command(resource, 0, 0, 0, &r, 0, &reply) == 0, "GetSharedMemoryHandle");
    check(svc_map_shared_memory(reply.copy_handles[0], HID_MEMORY, HID_SIZE, 1) == 0, "MapSharedMemory");
    uint32_t style_set[4] = {styles, 0, 0, 0};
    r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(hid, 100, style_set, sizeof style_set, &r, 0, &reply) == 0, "SetSupportedNpadStyleSet");
    static const uint32_t ids[2] = {NPAD_NO1, NPAD_HANDHELD};
    r = ipc_blank_request();
    r.send_pid = 1;
    r.num_statics = 1;
    r.statics[0] = (IpcBuffer){(uint64_t)ids, sizeof ids};
    check(ipc_command(hid, 102, zero, 8, &r, 0, &reply) == 0, "SetSupportedNpadIdType");
    uint32_t revision[4] = {3, 0, 0, 0};
    r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(hid, 109, revision, sizeof revision, &r, 0, &reply) == 0, "ActivateNpadWithRevision");
    r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(hid, 11, zero, 8, &r, 0, &reply) == 0, "ActivateTouchScreen");
}
