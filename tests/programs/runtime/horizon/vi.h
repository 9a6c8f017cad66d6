/* A client of the display services for the test programs, as libnx drives them (nx/source/services/vi.c,
 * display/binder.c, display/buffer_producer.c): vi:u's display service, the relay, a stray layer, and
 * IGraphicBufferProducer transactions in Android parcels. */
#ifndef TANDEM_VI_H
#define TANDEM_VI_H

#include "horizon.h"

typedef struct {
    Handle display_service, relay;
    uint64_t display, layer;
    uint32_t binder;
} ViLayer;

/* vi:u, the display service, the relay, the default display and a stray layer on it; 0 when all worked. */
int vi_open_stray_layer(ViLayer *layer);
void vi_close(ViLayer *layer);
/* GetDisplayVsyncEvent for the layer's display: the service's result; the event in *event. */
Result vi_get_vsync_event(ViLayer *layer, Handle *event);

/* Android's binder status codes. */
#define BINDER_NO_ERROR 0
#define BINDER_WOULD_BLOCK (-11)
#define BINDER_BAD_VALUE (-22)

/* IGraphicBufferProducer, each returning the binder status of the reply. */
int32_t bq_connect(ViLayer *layer, int32_t api, uint32_t *width, uint32_t *height);
/* A GraphicBuffer for slot `slot`: `nvmap_id`'s memory at `offset`, a block-linear A8B8G8R8 surface of
 * width x height texels (pitch = width x 4, a multiple of 64), blocks 2^block_height_log2 GOBs tall. */
int32_t bq_set_preallocated_buffer(ViLayer *layer, int32_t slot, uint32_t nvmap_id, uint32_t offset, uint32_t width,
                                   uint32_t height, uint32_t block_height_log2);
int32_t bq_dequeue_buffer(ViLayer *layer, uint32_t width, uint32_t height, int32_t *slot);
int32_t bq_request_buffer(ViLayer *layer, int32_t slot);
int32_t bq_queue_buffer(ViLayer *layer, int32_t slot);
int32_t bq_disconnect(ViLayer *layer, int32_t api);

#endif
