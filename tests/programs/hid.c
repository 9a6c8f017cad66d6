/* hid as libnx's hidInitialize and padInitializeDefault drive it: IHidServer's CreateAppletResource, the shared
 * memory from IAppletResource mapped read-only, the supported styles and ids, ActivateNpad; then padUpdate's
 * reads. The shared memory's layout is libnx's structs (switch/services/hid.h) written out in the runtime's pad.h,
 * independently of Tandem's. The console Tandem models
 * is handheld: the Handheld npad is connected, and No1 as a Pro Controller when the program supports it; a sample
 * comes every vertical blank, nothing pressed (this run has no input). */
#include "ipc.h"
#include "pad.h"
#include "tandem.h"

/* device_type sits at 0x4188 of an npad entry. */
static uint32_t device_type(uint32_t entry) {
    uint32_t value;
    memcpy(&value, HID_MEMORY + 0x9A00 + 0x5000 * entry + 0x4188, 4);
    return value;
}

static IpcReply reply;
static const uint64_t aruid = 0;

/* A command whose raw data is `data` (the aruid last, as the commands take it) and the process id. */
static Result command(Handle hid, uint32_t id, const void *data, uint32_t size, uint32_t out_size) {
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    return ipc_command(hid, id, data, size, &r, out_size, &reply);
}

int main(void) {
    Handle sm;
    uint64_t zero = 0;
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect");
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(sm, 0, &zero, 8, &r, 0, &reply) == 0, "RegisterClient");
    uint64_t name = ipc_service_name("hid");
    r = ipc_blank_request();
    expect("GetServiceHandle(hid)", ipc_command(sm, 1, &name, 8, &r, 0, &reply), RESULT_SUCCESS);
    Handle hid = reply.move_handles[0];

    print("-- the applet resource and its shared memory\n");
    expect("CreateAppletResource", command(hid, 0, &aruid, 8, 0), RESULT_SUCCESS);
    Handle resource = reply.move_handles[0];
    r = ipc_blank_request();
    expect("GetSharedMemoryHandle", ipc_command(resource, 0, 0, 0, &r, 0, &reply), RESULT_SUCCESS);
    check(reply.num_copy_handles == 1, "one copied handle");
    Handle memory = reply.copy_handles[0];
    expect("MapSharedMemory(rw-)", svc_map_shared_memory(memory, HID_MEMORY, HID_SIZE, 3),
           RESULT_INVALID_NEW_MEMORY_PERMISSION);
    expect("MapSharedMemory(r--)", svc_map_shared_memory(memory, HID_MEMORY, HID_SIZE, 1), RESULT_SUCCESS);
    check(npad(8)->style_set == 0 && npad(8)->handheld.header.count == 0, "nothing before ActivateNpad");

    print("-- padInitializeDefault: FullKey and Handheld, No1 and Handheld, then ActivateNpad\n");
    struct {
        uint32_t style_set, padding;
        uint64_t aruid;
    } styles = {STYLE_FULL_KEY | STYLE_HANDHELD, 0, 0};
    expect("SetSupportedNpadStyleSet", command(hid, 100, &styles, sizeof styles, 0), RESULT_SUCCESS);
    expect("GetSupportedNpadStyleSet", command(hid, 101, &aruid, 8, 4), RESULT_SUCCESS);
    uint32_t got;
    memcpy(&got, reply.data, 4);
    check(got == (STYLE_FULL_KEY | STYLE_HANDHELD), "the styles come back");
    /* Eleven ids: more than there are (yuzu's ResultInvalidArraySize, 202/715). */
    static const uint32_t too_many[11] = {0, 1, 2, 3, 4, 5, 6, 7, 0x10, 0x20, 0};
    r = ipc_blank_request();
    r.send_pid = 1;
    r.num_statics = 1;
    r.statics[0] = (IpcBuffer){(uint64_t)too_many, sizeof too_many};
    expect("SetSupportedNpadIdType(11 ids)", ipc_command(hid, 102, &aruid, 8, &r, 0, &reply), 0x596CAu);
    static const uint32_t ids[2] = {NPAD_NO1, NPAD_HANDHELD};
    r = ipc_blank_request();
    r.send_pid = 1;
    r.num_statics = 1;
    r.statics[0] = (IpcBuffer){(uint64_t)ids, sizeof ids};
    expect("SetSupportedNpadIdType", ipc_command(hid, 102, &aruid, 8, &r, 0, &reply), RESULT_SUCCESS);
    struct {
        int32_t revision, padding;
        uint64_t aruid;
    } revision = {3, 0, 0};
    expect("ActivateNpadWithRevision", command(hid, 109, &revision, sizeof revision, 0), RESULT_SUCCESS);
    check(npad(8)->style_set == STYLE_HANDHELD, "Handheld: the handheld style");
    check(device_type(8) == DEVICE_HANDHELD_LEFT_RIGHT, "Handheld: both Joy-Con attached");
    check(npad(0)->style_set == STYLE_FULL_KEY, "No1: a Pro Controller");
    check(device_type(0) == DEVICE_FULL_KEY, "No1: a FullKey device");
    check(npad(1)->style_set == 0, "No2: nothing");

    print("-- samples, one a vertical blank\n");
    svc_sleep_thread(50000000); /* three vertical blanks */
    const NpadCommonState *first = newest(&npad(8)->handheld);
    check(first != 0, "the handheld lifo has a sample");
    uint64_t first_number = first ? first->sampling_number : 0;
    check(npad(8)->handheld.header.buffer_count == 17, "the lifo holds 17");
    check(first && first->attributes & ATTRIBUTE_IS_CONNECTED, "the sample says connected");
    check(first && first->buttons == 0 && first->stick_l[0] == 0, "nothing pressed");
    const NpadCommonState *pro = newest(&npad(0)->full_key);
    check(pro && pro->sampling_number == first_number, "No1 samples with it");
    svc_sleep_thread(100000000); /* six more */
    const NpadCommonState *later = newest(&npad(8)->handheld);
    uint64_t later_number = later ? later->sampling_number : 0;
    check(later_number >= first_number + 5 && later_number <= first_number + 7, "six vertical blanks, six samples");
    uint64_t count = npad(8)->handheld.header.count;
    check(count == later_number && count <= 16, "every sample kept, up to 16");

    print("-- FullKey alone: the handheld npad goes\n");
    styles.style_set = STYLE_FULL_KEY;
    expect("SetSupportedNpadStyleSet(FullKey)", command(hid, 100, &styles, sizeof styles, 0), RESULT_SUCCESS);
    check(npad(8)->style_set == 0, "Handheld: no style");
    check(npad(0)->style_set == STYLE_FULL_KEY, "No1 stays");

    struct {
        uint32_t id, padding;
        uint64_t aruid, event;
    } update = {NPAD_NO1, 0, 0, 0};
    expect("AcquireNpadStyleSetUpdateEventHandle", command(hid, 106, &update, sizeof update, 0), RESULT_SUCCESS);
    check(reply.num_copy_handles == 1, "an event");
    expect("UnmapSharedMemory", svc_unmap_shared_memory(memory, HID_MEMORY, HID_SIZE), RESULT_SUCCESS);
    svc_close_handle(memory);

    print("hid: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
