#include "vi.h"
#include "ipc.h"
#include "tandem.h"

static IpcReply reply;
static uint8_t request_parcel[0x400] __attribute__((aligned(16)));
static uint8_t reply_parcel[0x400] __attribute__((aligned(16)));
static uint8_t native_window[0x100] __attribute__((aligned(16)));

static uint64_t out_u64(uint32_t index) {
    uint64_t v;
    memcpy(&v, reply.data + 8 * index, 8);
    return v;
}

int vi_open_stray_layer(ViLayer *layer) {
    Handle sm, root;
    uint64_t reserved = 0;
    int failed = 0;
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect to sm:");
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    failed |= ipc_command(sm, 0, &reserved, 8, &r, 0, &reply) != 0;
    uint64_t name = ipc_service_name("vi:u");
    r = ipc_blank_request();
    failed |= ipc_command(sm, 1, &name, 8, &r, 0, &reply) != 0;
    root = reply.move_handles[0];
    uint32_t policy = 0;
    r = ipc_blank_request();
    failed |= ipc_command(root, 0, &policy, 4, &r, 0, &reply) != 0;
    layer->display_service = reply.move_handles[0];
    r = ipc_blank_request();
    failed |= ipc_command(layer->display_service, 100, 0, 0, &r, 0, &reply) != 0;
    layer->relay = reply.move_handles[0];
    char display_name[0x40] = "Default";
    r = ipc_blank_request();
    failed |= ipc_command(layer->display_service, 1010, display_name, sizeof display_name, &r, 8, &reply) != 0;
    layer->display = out_u64(0);
    struct {
        uint32_t flags, padding;
        uint64_t display;
    } stray = {1, 0, layer->display};
    r = ipc_blank_request();
    r.num_receives = 1;
    r.receives[0] = (IpcBuffer){(uint64_t)native_window, sizeof native_window};
    failed |= ipc_command(layer->display_service, 2030, &stray, sizeof stray, &r, 16, &reply) != 0;
    layer->layer = out_u64(0);
    /* The native window parcel: its data (at the header's data offset) holds the binder id at +8. */
    uint32_t data_offset;
    memcpy(&data_offset, native_window + 4, 4);
    memcpy(&layer->binder, native_window + data_offset + 8, 4);
    svc_close_handle(root);
    svc_close_handle(sm);
    return failed;
}

Result vi_get_vsync_event(ViLayer *layer, Handle *event) {
    IpcRequest r = ipc_blank_request();
    Result result = ipc_command(layer->display_service, 5202, &layer->display, 8, &r, 0, &reply);
    *event = reply.num_copy_handles ? reply.copy_handles[0] : 0;
    return result;
}

void vi_close(ViLayer *layer) {
    IpcRequest r = ipc_blank_request();
    check(ipc_command(layer->display_service, 2031, &layer->layer, 8, &r, 0, &reply) == 0, "DestroyStrayLayer");
    r = ipc_blank_request();
    check(ipc_command(layer->display_service, 1020, &layer->display, 8, &r, 0, &reply) == 0, "CloseDisplay");
    svc_close_handle(layer->relay);
    svc_close_handle(layer->display_service);
}

/* A request parcel under construction: the data after the 16-byte header. */
static uint32_t parcel_size;

static void put(const void *bytes, uint32_t size) {
    memcpy(request_parcel + 16 + parcel_size, bytes, size);
    parcel_size += (size + 3) & ~3u;
}

static void put_u32(uint32_t value) { put(&value, 4); }

/* The interface token: strict-mode policy, then "android.gui.IGraphicBufferProducer" as UTF-16 with its NUL. */
static void begin(void) {
    static const char name[] = "android.gui.IGraphicBufferProducer";
    memset(request_parcel, 0, sizeof request_parcel);
    parcel_size = 0;
    put_u32(0x100);
    put_u32(sizeof name - 1);
    uint16_t units[sizeof name];
    for (uint32_t i = 0; i < sizeof name; i++) units[i] = (uint8_t)name[i];
    put(units, sizeof units);
}

/* Sends the parcel as transaction `code` (TransactParcel with A and B buffers); the reply's data in *data. */
static const uint8_t *transact(ViLayer *layer, uint32_t code, uint32_t *data_size) {
    uint32_t header[4] = {parcel_size, 16, 0, 16 + parcel_size};
    memcpy(request_parcel, header, 16);
    uint32_t words[3] = {layer->binder, code, 0};
    IpcRequest r = ipc_blank_request();
    r.num_sends = r.num_receives = 1;
    r.sends[0] = (IpcBuffer){(uint64_t)request_parcel, 16 + parcel_size};
    r.receives[0] = (IpcBuffer){(uint64_t)reply_parcel, sizeof reply_parcel};
    memset(reply_parcel, 0, sizeof reply_parcel);
    check(ipc_command(layer->relay, 0, words, sizeof words, &r, 0, &reply) == 0, "TransactParcel");
    uint32_t offset;
    memcpy(data_size, reply_parcel, 4);
    memcpy(&offset, reply_parcel + 4, 4);
    return reply_parcel + offset;
}

/* The status: the reply's last word. */
static int32_t status_of(const uint8_t *data, uint32_t size) {
    int32_t status;
    if (size < 4) return BINDER_BAD_VALUE;
    memcpy(&status, data + size - 4, 4);
    return status;
}

/* Sends the parcel and returns the reply's status. */
static int32_t transact_status(ViLayer *layer, uint32_t code) {
    uint32_t size;
    const uint8_t *data = transact(layer, code, &size);
    return status_of(data, size);
}

int32_t bq_connect(ViLayer *layer, int32_t api, uint32_t *width, uint32_t *height) {
    begin();
    put_u32(0);
    put_u32((uint32_t)api);
    put_u32(0);
    uint32_t size;
    const uint8_t *data = transact(layer, 10, &size);
    memcpy(width, data, 4);
    memcpy(height, data + 4, 4);
    return status_of(data, size);
}

int32_t bq_set_preallocated_buffer(ViLayer *layer, int32_t slot, uint32_t nvmap_id, uint32_t offset, uint32_t width,
                                   uint32_t height, uint32_t block_height_log2) {
    uint8_t buffer[0x16C];
    memset(buffer, 0, sizeof buffer);
    uint32_t pitch = width * 4, size = pitch * height;
    uint64_t color_format = 0x0100532120ull; /* NvColorFormat_A8B8G8R8 */
    uint32_t header[] = {0x47424652, width, height, width, 1, 0xB00, 42, 0, 0, 0x51, 0xFFFFFFFF, nvmap_id, 0,
                         0xDAFFCAFF, 42, 0, 0xB00, 1, 1, width, size, 1, 0};
    memcpy(buffer, header, sizeof header);
    uint32_t plane_size[2] = {width, height};
    memcpy(buffer + 0x5C, plane_size, 8);
    memcpy(buffer + 0x64, &color_format, 8);
    uint32_t plane[] = {3 /* block-linear */, pitch, 0, offset, 0xFE, block_height_log2};
    memcpy(buffer + 0x6C, plane, sizeof plane);
    uint64_t plane_bytes = size;
    memcpy(buffer + 0x94, &plane_bytes, 8);
    begin();
    put_u32((uint32_t)slot);
    put_u32(1);
    put_u32(sizeof buffer);
    put_u32(0);
    put(buffer, sizeof buffer);
    return transact_status(layer, 14);
}

int32_t bq_dequeue_buffer(ViLayer *layer, uint32_t width, uint32_t height, int32_t *slot) {
    begin();
    put_u32(0);
    put_u32(width);
    put_u32(height);
    put_u32(1);
    put_u32(0xB00);
    uint32_t size;
    const uint8_t *data = transact(layer, 3, &size);
    memcpy(slot, data, 4);
    return status_of(data, size);
}

int32_t bq_request_buffer(ViLayer *layer, int32_t slot) {
    begin();
    put_u32((uint32_t)slot);
    return transact_status(layer, 1);
}

int32_t bq_queue_buffer(ViLayer *layer, int32_t slot) {
    uint8_t input[0x54];
    memset(input, 0, sizeof input);
    uint32_t swap_interval = 1;
    memcpy(input + 0x2C, &swap_interval, 4);
    begin();
    put_u32((uint32_t)slot);
    put_u32(sizeof input);
    put_u32(0);
    put(input, sizeof input);
    return transact_status(layer, 7);
}

int32_t bq_disconnect(ViLayer *layer, int32_t api) {
    begin();
    put_u32((uint32_t)api);
    return transact_status(layer, 11);
}
