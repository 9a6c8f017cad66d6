/* A client of Horizon's IPC for the test programs: builds CMIF and TIPC requests in a message buffer, sends them,
 * and takes the reply apart. Layouts from switchbrew's "IPC Marshalling" page (HIPC header, special header, X/A/B
 * descriptors, receive list; the CMIF in/out and domain headers). Deliberately able to build malformed messages too:
 * the fields are the caller's, unchecked. */
#ifndef TANDEM_IPC_H
#define TANDEM_IPC_H

#include "horizon.h"

/* HIPC message types. */
#define IPC_TYPE_CLOSE 2u
#define IPC_TYPE_REQUEST 4u
#define IPC_TYPE_CONTROL 5u
#define IPC_TYPE_TIPC(command) (16u + (command))

/* Domain header commands. */
#define IPC_DOMAIN_SEND 1u
#define IPC_DOMAIN_CLOSE 2u

#define IPC_MAX 4

typedef struct {
    uint64_t address;
    uint64_t size;
} IpcBuffer;

typedef struct {
    uint32_t type;
    uint32_t command_id;
    int send_pid;
    uint32_t num_copy_handles, num_move_handles;
    Handle copy_handles[IPC_MAX], move_handles[IPC_MAX];
    /* The arguments, after the CMIF header (TIPC: right at the data words). */
    const void *data;
    uint32_t data_size;
    uint32_t num_sends, num_receives, num_statics, num_receive_list;
    IpcBuffer sends[IPC_MAX];    /* A */
    IpcBuffer receives[IPC_MAX]; /* B */
    IpcBuffer statics[IPC_MAX];  /* X (size < 64 KiB) */
    IpcBuffer receive_list[IPC_MAX]; /* C (size < 64 KiB) */
    /* Non-zero: receive-list mode 1, pointer data of the reply into the message buffer (no C entries). */
    int receive_into_message_buffer;
    /* Non-zero: a domain message (IPC_DOMAIN_SEND or IPC_DOMAIN_CLOSE) for object `domain_object`. */
    uint32_t domain_command;
    uint32_t domain_object;
    uint32_t num_in_objects;
    uint32_t in_objects[IPC_MAX];
    /* Overrides for malformed messages: the SFCI magic (0: the right one), and the data word count (0: computed). */
    uint32_t magic;
    uint32_t data_words;
} IpcRequest;

typedef struct {
    /* The service's result (CMIF out header, or TIPC's first word). */
    Result result;
    /* The outputs (after the CMIF out header), in the message buffer. */
    const uint8_t *data;
    uint32_t num_move_handles, num_copy_handles;
    Handle move_handles[IPC_MAX], copy_handles[IPC_MAX];
    uint32_t num_objects;
    const uint32_t *objects; /* domain object ids after `out_size` bytes of outputs */
    /* The reply's pointer (X) descriptors: where the kernel put the server's pointer data for us. */
    uint32_t num_statics;
    IpcBuffer statics[IPC_MAX];
} IpcReply;

/* Writes the request into `buffer` (the thread-local area for svc_send_sync_request). */
void ipc_build(void *buffer, const IpcRequest *request);
/* Takes apart the reply in `buffer` to a request of `type`, on a domain session or not, with `out_size` bytes of
 * outputs. */
void ipc_parse(const void *buffer, uint32_t type, int domain, uint32_t out_size, IpcReply *reply);
/* Builds the request in the thread-local area, sends it, and parses the reply when the kernel's result is success.
 * Returns the kernel's result; the service's is reply->result. */
Result ipc_call(Handle session, const IpcRequest *request, uint32_t out_size, IpcReply *reply);

/* A request as a server sees it in its message buffer (CMIF on a session that is not a domain, or TIPC). */
typedef struct {
    uint32_t type;
    uint32_t command_id;
    int has_pid;
    uint64_t pid;
    uint32_t num_copy_handles, num_move_handles, num_sends;
    Handle copy_handles[IPC_MAX], move_handles[IPC_MAX];
    IpcBuffer sends[IPC_MAX];
    const uint8_t *data; /* the arguments */
} IpcServerRequest;

void ipc_parse_request(const void *buffer, IpcServerRequest *request);
/* Writes a reply to a request of `type`: the result, `size` bytes of outputs, copied and moved handles, pointer
 * data for the client's receive list (`pointer`, or NULL), and where the server takes the next request's pointer
 * data (`receive`, or NULL). */
void ipc_build_reply(void *buffer, uint32_t type, Result result, const void *data, uint32_t size, uint32_t num_copy,
                     const Handle *copy, uint32_t num_move, const Handle *move, const IpcBuffer *pointer,
                     const IpcBuffer *receive);

/* For the test programs: prints "what: 0x..." and, unless got == want, what it should be, counting a failure. */
void expect(const char *what, Result got, Result want);
/* A request with every field zero. */
IpcRequest ipc_blank_request(void);
/* Sends `request` as command `command` with `size` bytes of arguments at `data` (a CMIF request unless the type is
 * set already) and takes the reply apart into `reply`. A kernel refusal counts as a failure. Returns the service's
 * result (or the kernel's, when it refused). */
Result ipc_command(Handle session, uint32_t command, const void *data, uint32_t size, IpcRequest *request,
                   uint32_t out_size, IpcReply *reply);

/* A service name for sm's GetServiceHandle: the characters NUL-padded into a u64. */
uint64_t ipc_service_name(const char *name);

#endif
