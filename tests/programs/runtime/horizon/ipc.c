/* The IPC client of ipc.h. */
#include "ipc.h"

#include "tandem.h"

#define SFCI 0x49434653u
#define SFCO 0x4F434653u

static uint32_t *put(uint32_t *at, uint32_t word) {
    *at = word;
    return at + 1;
}

void ipc_build(void *buffer, const IpcRequest *r) {
    uint32_t *base = (uint32_t *)buffer;
    uint32_t *at = base + 2;
    int special = r->send_pid || r->num_copy_handles || r->num_move_handles;
    int tipc = r->type >= 16;
    if (special) {
        at = put(at, (r->send_pid ? 1u : 0u) | r->num_copy_handles << 1 | r->num_move_handles << 5);
        if (r->send_pid) {
            at = put(at, 0);
            at = put(at, 0); /* the kernel fills the process id in */
        }
        for (uint32_t i = 0; i < r->num_copy_handles; i++) at = put(at, r->copy_handles[i]);
        for (uint32_t i = 0; i < r->num_move_handles; i++) at = put(at, r->move_handles[i]);
    }
    for (uint32_t i = 0; i < r->num_statics; i++) {
        uint64_t a = r->statics[i].address;
        at = put(at, i | (uint32_t)(a >> 36 & 0x3f) << 6 | (uint32_t)(a >> 32 & 0xf) << 12 |
                         (uint32_t)r->statics[i].size << 16);
        at = put(at, (uint32_t)a);
    }
    for (uint32_t list = 0; list < 2; list++) {
        const IpcBuffer *buffers = list ? r->receives : r->sends;
        uint32_t count = list ? r->num_receives : r->num_sends;
        for (uint32_t i = 0; i < count; i++) {
            uint64_t a = buffers[i].address, s = buffers[i].size;
            at = put(at, (uint32_t)s);
            at = put(at, (uint32_t)a);
            at = put(at, (uint32_t)(a >> 36 & 0x3fffff) << 2 | (uint32_t)(s >> 32 & 0xf) << 24 |
                             (uint32_t)(a >> 32 & 0xf) << 28);
        }
    }
    uint32_t *data = at;
    if (tipc) {
        memcpy(at, r->data, r->data_size);
        at += (r->data_size + 3) / 4;
    } else {
        /* CMIF data starts at a 16-byte boundary; the word count includes 16 bytes of slack for it. */
        uint32_t *aligned = (uint32_t *)(((uintptr_t)at + 15) & ~(uintptr_t)15);
        memset(at, 0, (size_t)((uint8_t *)aligned - (uint8_t *)at));
        at = aligned;
        uint32_t payload = 16 + r->data_size;
        if (r->domain_command) {
            at = put(at, r->domain_command | r->num_in_objects << 8 | payload << 16);
            at = put(at, r->domain_object);
            at = put(at, 0);
            at = put(at, 0);
        }
        at = put(at, r->magic ? r->magic : SFCI);
        at = put(at, 0);
        at = put(at, r->command_id);
        at = put(at, 0);
        memcpy(at, r->data, r->data_size);
        at += (r->data_size + 3) / 4;
        for (uint32_t i = 0; i < r->num_in_objects; i++) at = put(at, r->in_objects[i]);
        at = data + (16 + (uint32_t)((uint8_t *)at - (uint8_t *)aligned)) / 4;
    }
    uint32_t data_words = r->data_words ? r->data_words : (uint32_t)(at - data);
    for (uint32_t i = 0; i < r->num_receive_list; i++) {
        uint64_t a = r->receive_list[i].address;
        at = put(at, (uint32_t)a);
        at = put(at, (uint32_t)(a >> 32 & 0xffff) | (uint32_t)r->receive_list[i].size << 16);
    }
    base[0] = r->type | r->num_statics << 16 | r->num_sends << 20 | r->num_receives << 24;
    /* Receive-static mode: 0 none; 1 the message buffer; 2 + n for n entries (libnx's choice). */
    uint32_t receive_mode = r->receive_into_message_buffer ? 1 : r->num_receive_list ? 2 + r->num_receive_list : 0;
    base[1] = data_words | receive_mode << 10 | (special ? 1u : 0u) << 31;
}

void ipc_parse(const void *buffer, uint32_t type, int domain, uint32_t out_size, IpcReply *reply) {
    const uint32_t *base = (const uint32_t *)buffer;
    const uint32_t *at = base + 2;
    memset(reply, 0, sizeof *reply);
    if (base[1] >> 31) {
        uint32_t special = *at++;
        if (special & 1) at += 2;
        reply->num_copy_handles = special >> 1 & 0xf;
        reply->num_move_handles = special >> 5 & 0xf;
        for (uint32_t i = 0; i < reply->num_copy_handles; i++) {
            uint32_t h = *at++;
            if (i < IPC_MAX) reply->copy_handles[i] = h;
        }
        for (uint32_t i = 0; i < reply->num_move_handles; i++) {
            uint32_t h = *at++;
            if (i < IPC_MAX) reply->move_handles[i] = h;
        }
    }
    reply->num_statics = base[0] >> 16 & 0xf;
    for (uint32_t i = 0; i < reply->num_statics; i++, at += 2) {
        uint64_t high = (uint64_t)(at[0] >> 6 & 0x7) << 36 | (uint64_t)(at[0] >> 12 & 0xf) << 32;
        if (i < IPC_MAX) reply->statics[i] = (IpcBuffer){high | at[1], at[0] >> 16};
    }
    at += 3 * ((base[0] >> 20 & 0xf) + (base[0] >> 24 & 0xf) + (base[0] >> 28 & 0xf));
    if (type >= 16) {
        reply->result = at[0];
        reply->data = (const uint8_t *)(at + 1);
        return;
    }
    at = (const uint32_t *)(((uintptr_t)at + 15) & ~(uintptr_t)15);
    if (domain && type == IPC_TYPE_REQUEST) {
        reply->num_objects = at[0];
        at += 4;
    }
    reply->result = at[0] == SFCO ? at[2] : 0xFFFFFFFFu;
    reply->data = (const uint8_t *)(at + 4);
    reply->objects = (const uint32_t *)(reply->data + out_size);
}

Result ipc_call(Handle session, const IpcRequest *request, uint32_t out_size, IpcReply *reply) {
    void *buffer = (void *)thread_local_area();
    ipc_build(buffer, request);
    Result rc = svc_send_sync_request(session);
    if (rc == RESULT_SUCCESS) ipc_parse(buffer, request->type, request->domain_command != 0, out_size, reply);
    return rc;
}

void ipc_parse_request(const void *buffer, IpcServerRequest *request) {
    const uint32_t *base = (const uint32_t *)buffer;
    const uint32_t *at = base + 2;
    memset(request, 0, sizeof *request);
    request->type = base[0] & 0xffff;
    if (base[1] >> 31) {
        uint32_t special = *at++;
        if (special & 1) {
            request->has_pid = 1;
            memcpy(&request->pid, at, 8);
            at += 2;
        }
        request->num_copy_handles = special >> 1 & 0xf;
        request->num_move_handles = special >> 5 & 0xf;
        for (uint32_t i = 0; i < request->num_copy_handles; i++) {
            uint32_t h = *at++;
            if (i < IPC_MAX) request->copy_handles[i] = h;
        }
        for (uint32_t i = 0; i < request->num_move_handles; i++) {
            uint32_t h = *at++;
            if (i < IPC_MAX) request->move_handles[i] = h;
        }
    }
    at += 2 * (base[0] >> 16 & 0xf);
    request->num_sends = base[0] >> 20 & 0xf;
    for (uint32_t i = 0; i < request->num_sends; i++, at += 3) {
        if (i >= IPC_MAX) continue;
        request->sends[i].size = at[0] | (uint64_t)(at[2] >> 24 & 0xf) << 32;
        request->sends[i].address = at[1] | (uint64_t)(at[2] >> 28 & 0xf) << 32 | (uint64_t)(at[2] >> 2 & 0x3fffff) << 36;
    }
    at += 3 * ((base[0] >> 24 & 0xf) + (base[0] >> 28 & 0xf));
    if (request->type >= 16) {
        request->command_id = request->type - 16;
        request->data = (const uint8_t *)at;
        return;
    }
    at = (const uint32_t *)(((uintptr_t)at + 15) & ~(uintptr_t)15);
    request->command_id = at[2];
    request->data = (const uint8_t *)(at + 4);
}

void ipc_build_reply(void *buffer, uint32_t type, Result result, const void *data, uint32_t size, uint32_t num_copy,
                     const Handle *copy, uint32_t num_move, const Handle *move, const IpcBuffer *pointer,
                     const IpcBuffer *receive) {
    uint32_t *base = (uint32_t *)buffer;
    uint32_t *at = base + 2;
    int special = num_copy || num_move;
    if (special) {
        at = put(at, num_copy << 1 | num_move << 5);
        for (uint32_t i = 0; i < num_copy; i++) at = put(at, copy[i]);
        for (uint32_t i = 0; i < num_move; i++) at = put(at, move[i]);
    }
    if (pointer) {
        uint64_t a = pointer->address;
        at = put(at, (uint32_t)(a >> 36 & 0x3f) << 6 | (uint32_t)(a >> 32 & 0xf) << 12 | (uint32_t)pointer->size << 16);
        at = put(at, (uint32_t)a);
    }
    uint32_t *data_words = at;
    if (type >= 16) {
        at = put(at, result);
        memcpy(at, data, size);
        at += (size + 3) / 4;
    } else {
        uint32_t *aligned = (uint32_t *)(((uintptr_t)at + 15) & ~(uintptr_t)15);
        memset(at, 0, (size_t)((uint8_t *)aligned - (uint8_t *)at));
        at = aligned;
        at = put(at, SFCO);
        at = put(at, 0);
        at = put(at, result);
        at = put(at, 0);
        memcpy(at, data, size);
        at += (size + 3) / 4;
        at = data_words + (16 + (uint32_t)((uint8_t *)at - (uint8_t *)aligned)) / 4;
    }
    base[0] = (pointer ? 1u : 0u) << 16;
    base[1] = (uint32_t)(at - data_words) | (receive ? 3u : 0u) << 10 | (special ? 1u : 0u) << 31;
    if (receive) {
        at = put(at, (uint32_t)receive->address);
        put(at, (uint32_t)(receive->address >> 32 & 0xffff) | (uint32_t)receive->size << 16);
    }
}

void expect(const char *what, Result got, Result want) {
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

IpcRequest ipc_blank_request(void) {
    IpcRequest request;
    memset(&request, 0, sizeof request);
    return request;
}

Result ipc_command(Handle session, uint32_t command, const void *data, uint32_t size, IpcRequest *request,
                   uint32_t out_size, IpcReply *reply) {
    if (request->type == 0) request->type = IPC_TYPE_REQUEST;
    request->command_id = command;
    request->data = data;
    request->data_size = size;
    Result rc = ipc_call(session, request, out_size, reply);
    check(rc == RESULT_SUCCESS, "the kernel takes the request");
    return rc ? rc : reply->result;
}

uint64_t ipc_service_name(const char *name) {
    uint64_t value = 0;
    for (int i = 0; i < 8 && name[i]; i++) value |= (uint64_t)(uint8_t)name[i] << (8 * i);
    return value;
}
