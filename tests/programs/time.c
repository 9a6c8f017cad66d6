/* The time services: the steady clock (guest time), the user system clock (the epoch given with --clock-epoch plus
 * guest time), time's shared memory read as libnx's timeGetCurrentTime reads it, and UTC conversions both ways.
 * The test compares every calendar line with GNU date's. */
#include "ipc.h"
#include "tandem.h"

static IpcReply reply;

static Handle object(Handle session, uint32_t command, const char *what) {
    IpcRequest r = ipc_blank_request();
    Result rc = ipc_command(session, command, 0, 0, &r, 0, &reply);
    check(rc == 0 && reply.num_move_handles == 1, what);
    return reply.move_handles[0];
}

static uint64_t u64_at(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void print_two(uint64_t v) {
    print_char((char)('0' + v / 10 % 10));
    print_char((char)('0' + v % 10));
}

/* CalendarTime (8 bytes) and CalendarAdditionalInfo (0x18) as "YYYY-MM-DD HH:MM:SS wday W yday D zone Z". */
static void print_calendar(const uint8_t *c) {
    int16_t year;
    memcpy(&year, c, 2);
    print_u64((uint64_t)year);
    print("-");
    print_two(c[2]);
    print("-");
    print_two(c[3]);
    print(" ");
    print_two(c[4]);
    print(":");
    print_two(c[5]);
    print(":");
    print_two(c[6]);
    uint32_t wday, yday;
    memcpy(&wday, c + 8, 4);
    memcpy(&yday, c + 12, 4);
    print(" wday ");
    print_u64(wday);
    print(" yday ");
    print_u64(yday + 1);
    print(" zone ");
    print((const char *)c + 16);
    print("\n");
}

static uint8_t rule[0x4000];

int main(void) {
    Handle sm;
    uint64_t reserved = 0;
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect");
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(sm, 0, &reserved, 8, &r, 0, &reply) == 0, "RegisterClient");
    uint64_t name = ipc_service_name("time:u");
    r = ipc_blank_request();
    check(ipc_command(sm, 1, &name, 8, &r, 0, &reply) == 0, "GetServiceHandle(time:u)");
    Handle time = reply.move_handles[0];

    Handle steady = object(time, 2, "GetStandardSteadyClock");
    r = ipc_blank_request();
    check(ipc_command(steady, 0, 0, 0, &r, 0x18, &reply) == 0, "GetCurrentTimePoint");
    uint64_t boot_seconds = u64_at(reply.data);
    print("steady clock source: ");
    char source[17] = {0};
    memcpy(source, reply.data + 8, 16);
    print(source);
    print("\n");
    check(boot_seconds < 5, "a few seconds of guest time since boot");

    Handle user_clock = object(time, 0, "GetStandardUserSystemClock");
    r = ipc_blank_request();
    check(ipc_command(user_clock, 0, 0, 0, &r, 8, &reply) == 0, "GetCurrentTime");
    uint64_t now = u64_at(reply.data);
    r = ipc_blank_request();
    check(ipc_command(user_clock, 2, 0, 0, &r, 0x20, &reply) == 0, "GetSystemClockContext");
    uint64_t offset = u64_at(reply.data);
    uint8_t ipc_context[0x20];
    memcpy(ipc_context, reply.data, sizeof ipc_context);
    print("epoch: ");
    print_u64(offset);
    print("\n");
    /* A system clock's time is its context's offset plus the steady clock's current time point; the context
     * itself (offset, and the time point when the clock was set) stays the same until the clock is set. */
    check(now == offset + boot_seconds || now == offset + boot_seconds + 1, "now = context offset + steady time");

    /* libnx's _timeReadClockFromSharedMem: at 0x0 the steady clock (counter, padding, two copies of {base ns,
     * source}), at 0x38 the local system clock's context (two copies of {offset, time point, source}); the
     * counter's low bit picks the copy. Now = offset + (base + ticks in ns) / 1e9, if the sources agree. */
    r = ipc_blank_request();
    check(ipc_command(time, 20, 0, 0, &r, 0, &reply) == 0 && reply.num_copy_handles == 1, "GetSharedMemoryNativeHandle");
    uint8_t *shared = (uint8_t *)0x4000000000ull;
    check(svc_map_shared_memory(reply.copy_handles[0], shared, 0x1000, 1) == 0, "map time's shared memory");
    uint32_t counter;
    memcpy(&counter, shared, 4);
    const uint8_t *steady_point = shared + 8 + (counter & 1) * 0x18;
    memcpy(&counter, shared + 0x38, 4);
    const uint8_t *context = shared + 0x38 + 8 + (counter & 1) * 0x20;
    check(memcmp(steady_point + 8, context + 16, 16) == 0, "the clocks share a source");
    check(memcmp(context, ipc_context, sizeof ipc_context) == 0, "the shared memory holds GetSystemClockContext's context");
    uint64_t ticks = svc_get_system_tick();
    uint64_t shared_now = u64_at(context) + (u64_at(steady_point) + ticks * 625 / 12) / 1000000000ull;
    check(shared_now == now || shared_now == now + 1, "the shared memory's time is GetCurrentTime's");
    svc_sleep_thread(1100000000ll);
    r = ipc_blank_request();
    check(ipc_command(user_clock, 2, 0, 0, &r, 0x20, &reply) == 0, "GetSystemClockContext, a second later");
    check(memcmp(ipc_context, reply.data, sizeof ipc_context) == 0, "the context has not changed");

    Handle zones = object(time, 3, "GetTimeZoneService");
    r = ipc_blank_request();
    check(ipc_command(zones, 0, 0, 0, &r, 0x24, &reply) == 0, "GetDeviceLocationName");
    print("location: ");
    print((const char *)reply.data);
    print("\n");

    static const int64_t instants[] = {0, 951782399, 951782400, 2147483647, 2147483648, -1, 1767225600, 4102444800};
    for (unsigned i = 0; i < sizeof instants / sizeof instants[0]; i++) {
        r = ipc_blank_request();
        check(ipc_command(zones, 101, &instants[i], 8, &r, 0x20, &reply) == 0, "ToCalendarTimeWithMyRule");
        print("calendar ");
        print_i64(instants[i]);
        print(": ");
        print_calendar(reply.data);
        uint8_t calendar[8];
        memcpy(calendar, reply.data, 8);
        int64_t back = 0;
        r = ipc_blank_request();
        r.num_receive_list = 1;
        r.receive_list[0] = (IpcBuffer){(uint64_t)&back, 8};
        check(ipc_command(zones, 202, calendar, 8, &r, 4, &reply) == 0, "ToPosixTimeWithMyRule");
        uint32_t count;
        memcpy(&count, reply.data, 4);
        check(count == 1 && back == instants[i], "the calendar time converts back");
    }

    char location[0x24] = "UTC";
    r = ipc_blank_request();
    r.num_receives = 1;
    r.receives[0] = (IpcBuffer){(uint64_t)rule, sizeof rule};
    check(ipc_command(zones, 4, location, sizeof location, &r, 0, &reply) == 0, "LoadTimeZoneRule(UTC)");
    r = ipc_blank_request();
    r.num_sends = 1;
    r.sends[0] = (IpcBuffer){(uint64_t)rule, sizeof rule};
    check(ipc_command(zones, 100, &now, 8, &r, 0x20, &reply) == 0, "ToCalendarTime(now, UTC)");
    print("now: ");
    print_calendar(reply.data);
    rule[0] = 'X';
    check(ipc_command(zones, 100, &now, 8, &r, 0x20, &reply) != 0, "a rule LoadTimeZoneRule did not write is refused");

    print("time: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
