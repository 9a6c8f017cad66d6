/* fsp-srv: the RomFS through OpenDataStorageByCurrentProcess (parsed here from switchbrew's "RomFS" layout), and
 * save data: create, open, files, directories, commit, and the results Horizon gives for escapes, bad modes and
 * double opens (Atmosphère's fs_results: module 2); the SD card (OpenSdCardFileSystem, a host folder): a note
 * written on a new card, read back on the next run; a package (an .nsp, switchbrew's PFS0 layout) written to the
 * card and opened with OpenFileSystemWithId (commands 8 and 10), with the results Horizon's file system service
 * (LibHac's NcaFileSystemServiceImpl and PartitionFileSystem) gives for bad types, ids, mounts and paths. Run it
 * twice on one save folder: the second run must find what the first committed, and nothing it wrote after its
 * commit. */
#include "ipc.h"
#include "tandem.h"

#define FS_PATH_NOT_FOUND 0x202u                                       /* 2-1 */
#define FS_PATH_ALREADY_EXISTS 0x402u                                  /* 2-2 */
#define FS_TARGET_LOCKED 0xE02u                                        /* 2-7 */
#define FS_NOT_ENOUGH_FREE_SPACE 0x3C02u                               /* 2-30 */
#define FS_DIRECTORY_NOT_EMPTY 0x1002u                                 /* 2-8 */
#define FS_TARGET_NOT_FOUND 0x7D402u                                   /* 2-1002 */
#define FS_OUT_OF_RANGE 0x177A02u                                      /* 2-3005 */
#define FS_INVALID_CHARACTER 0x2EE802u                                 /* 2-6004 */
#define FS_INVALID_PATH_FORMAT 0x2EEA02u                               /* 2-6005 */
#define FS_DIRECTORY_UNOBTAINABLE 0x2EEC02u                            /* 2-6006 */
#define FS_DIRECTORY_NOT_DELETABLE 0x2F1E02u                           /* 2-6031 */
#define FS_FILE_EXTENSION_WITHOUT_OPEN_MODE_ALLOW_APPEND 0x307202u     /* 2-6201 */
#define FS_READ_NOT_PERMITTED 0x307402u                                /* 2-6202 */
#define FS_WRITE_NOT_PERMITTED 0x307602u                               /* 2-6203 */
#define FS_INVALID_ARGUMENT 0x2EE202u                                  /* 2-6001 */
#define FS_PERMISSION_DENIED 0x320002u                                 /* 2-6400 */
#define FS_UNEXPECTED_IN_NCA_FILE_SYSTEM_SERVICE_IMPL_A 0x299002u      /* 2-5320 */
#define FS_INVALID_PARTITION_FILE_SYSTEM_MAGIC 0x244802u               /* 2-4644 */
#define FS_UNSUPPORTED_WRITE_FOR_PARTITION_FILE_SYSTEM 0x31CC02u       /* 2-6374 */
#define FS_TYPE_CONTROL 3u
#define FS_TYPE_META 5u
#define FS_TYPE_PACKAGE 7u

#define MODE_READ 1u
#define MODE_WRITE 2u
#define MODE_APPEND 4u

static IpcReply reply;

/* A CMIF request with `size` bytes of arguments; the service's result (the kernel's must be success). */
static uint64_t out_u64(void) {
    uint64_t v;
    memcpy(&v, reply.data, 8);
    return v;
}

/* Path buffers: 0x301 bytes each, as the fixed-size pointer buffers fsp-srv declares. */
static char paths[2][0x301];

static IpcRequest with_paths(const char *first, const char *second) {
    IpcRequest r = ipc_blank_request();
    const char *names[2] = {first, second};
    for (int i = 0; i < 2 && names[i]; i++) {
        memset(paths[i], 0, sizeof paths[i]);
        memcpy(paths[i], names[i], strlen(names[i]));
        r.statics[i] = (IpcBuffer){(uint64_t)paths[i], sizeof paths[i]};
        r.num_statics = (uint32_t)i + 1;
    }
    return r;
}

static Result path_command(Handle fs, uint32_t command, const char *path, const void *data, uint32_t size,
                           uint32_t out_size) {
    IpcRequest r = with_paths(path, 0);
    return ipc_command(fs, command, data, size, &r, out_size, &reply);
}

/* IFile Read/Write arguments: option, padding, offset, size. */
typedef struct {
    uint32_t option, padding;
    uint64_t offset, size;
} FileRange;

static Result file_io(Handle file, int write, uint64_t offset, void *buffer, uint64_t size) {
    FileRange range = {0, 0, offset, size};
    IpcRequest r = ipc_blank_request();
    if (write) {
        r.num_sends = 1;
        r.sends[0] = (IpcBuffer){(uint64_t)buffer, size};
    } else {
        r.num_receives = 1;
        r.receives[0] = (IpcBuffer){(uint64_t)buffer, size};
    }
    return ipc_command(file, write ? 1 : 0, &range, sizeof range, &r, 8, &reply);
}

static Handle open_file(Handle fs, const char *path, uint32_t mode) {
    Result rc = path_command(fs, 8, path, &mode, 4, 0);
    check(rc == 0, "OpenFile");
    return rc ? 0 : reply.move_handles[0];
}

static uint8_t romfs[0x400];
static uint8_t text[0x100];

static void read_romfs(Handle fsp) {
    IpcRequest r = ipc_blank_request();
    expect("OpenDataStorageByCurrentProcess", ipc_command(fsp, 200, 0, 0, &r, 0, &reply), RESULT_SUCCESS);
    Handle storage = reply.move_handles[0];
    r = ipc_blank_request();
    expect("IStorage::GetSize", ipc_command(storage, 4, 0, 0, &r, 8, &reply), RESULT_SUCCESS);
    uint64_t size = out_u64();
    uint64_t range[2] = {0, sizeof romfs < size ? sizeof romfs : size};
    r = ipc_blank_request();
    r.num_receives = 1;
    r.receives[0] = (IpcBuffer){(uint64_t)romfs, sizeof romfs};
    expect("IStorage::Read(header and tables)", ipc_command(storage, 0, range, 16, &r, 0, &reply), RESULT_SUCCESS);
    /* Header: ten u64s; [7] file meta table offset, [8] its size, [9] file data offset. */
    uint64_t header[10];
    memcpy(header, romfs, sizeof header);
    check(header[0] == 0x50, "a RomFS header is 0x50 bytes");
    for (uint64_t at = header[7]; at < header[7] + header[8];) {
        /* File entry: parent, sibling, data offset (u64), data size (u64), hash sibling, name length, name. */
        uint32_t name_length;
        uint64_t offset, length;
        memcpy(&offset, romfs + at + 8, 8);
        memcpy(&length, romfs + at + 16, 8);
        memcpy(&name_length, romfs + at + 28, 4);
        print("romfs file: ");
        char name[64] = {0};
        memcpy(name, romfs + at + 32, name_length < 63 ? name_length : 63);
        print(name);
        uint64_t file_range[2] = {header[9] + offset, length < sizeof text - 1 ? length : sizeof text - 1};
        memset(text, 0, sizeof text);
        r = ipc_blank_request();
        r.num_receives = 1;
        r.receives[0] = (IpcBuffer){(uint64_t)text, sizeof text};
        check(ipc_command(storage, 0, file_range, 16, &r, 0, &reply) == 0, "IStorage::Read(file)");
        print(" = \"");
        for (uint64_t i = 0; i < file_range[1]; i++) print_char(text[i] == '\n' ? '|' : (char)text[i]);
        print("\"\n");
        at += 32 + ((name_length + 3) & ~3u);
    }
    range[0] = size - 4;
    range[1] = 8;
    r = ipc_blank_request();
    r.num_receives = 1;
    r.receives[0] = (IpcBuffer){(uint64_t)romfs, 8};
    expect("IStorage::Read(past the end)", ipc_command(storage, 0, range, 16, &r, 0, &reply), FS_OUT_OF_RANGE);
    svc_close_handle(storage);
}

/* SaveDataAttribute: program id (0: this one), user id, system save id, type (1: account), rank, index. */
/* OpenSaveDataFileSystem's arguments: the space id, then at 8 the attribute (CreateSaveDataFileSystem's start
 * there, followed by the creation and meta info, left zero). */
static uint8_t save_arguments[8 + 0x90];

static Result try_open_save(Handle fsp, Handle *out) {
    memset(save_arguments, 0, sizeof save_arguments);
    save_arguments[0] = 1;        /* space: User */
    save_arguments[8 + 8] = 1;    /* user id 1 */
    save_arguments[8 + 0x20] = 1; /* account save data */
    IpcRequest r = ipc_blank_request();
    Result rc = ipc_command(fsp, 51, save_arguments, 0x48, &r, 0, &reply);
    *out = rc ? 0 : reply.move_handles[0];
    return rc;
}

static Handle open_save(Handle fsp, Result want) {
    Handle handle;
    expect("OpenSaveDataFileSystem", try_open_save(fsp, &handle), want);
    return handle;
}

static void use_save(Handle fsp) {
    Handle fs = open_save(fsp, RESULT_SUCCESS);
    open_save(fsp, FS_TARGET_LOCKED);

    uint32_t kind = 9;
    Result rc = path_command(fs, 7, "/progress", 0, 0, 4);
    uint64_t runs = 0;
    if (rc == 0) {
        Handle file = open_file(fs, "/progress", MODE_READ);
        memset(text, 0, sizeof text);
        check(file_io(file, 0, 0, text, 32) == 0, "read progress");
        print("progress: ");
        print((const char *)text);
        print("\n");
        for (const uint8_t *p = text + 5; *p >= '0' && *p <= '9'; p++) runs = runs * 10 + (uint64_t)(*p - '0');
        svc_close_handle(file);
    } else {
        expect("GetEntryType(/progress) in a new save", rc, FS_PATH_NOT_FOUND);
        print("progress: none\n");
        uint64_t create[2] = {0, 0};
        expect("CreateFile(/progress)", path_command(fs, 0, "/progress", create, 16, 0), RESULT_SUCCESS);
    }
    expect("GetEntryType(/uncommitted)", path_command(fs, 7, "/uncommitted", 0, 0, 4), FS_PATH_NOT_FOUND);

    Handle file = open_file(fs, "/progress", MODE_WRITE | MODE_APPEND);
    char line[16] = "runs=";
    line[5] = (char)('0' + (runs + 1) % 10);
    expect("Write(/progress)", file_io(file, 1, 0, line, 6), RESULT_SUCCESS);
    svc_close_handle(file);
    IpcRequest r = ipc_blank_request();
    expect("Commit", ipc_command(fs, 10, 0, 0, &r, 0, &reply), RESULT_SUCCESS);
    uint64_t create[2] = {0, 4};
    expect("CreateFile(/uncommitted) after the commit", path_command(fs, 0, "/uncommitted", create, 16, 0),
           RESULT_SUCCESS);

    print("-- paths\n");
    expect("GetEntryType(/../escape)", path_command(fs, 7, "/../escape", 0, 0, 4), FS_DIRECTORY_UNOBTAINABLE);
    expect("GetEntryType(/a/../../etc/passwd)", path_command(fs, 7, "/a/../../etc/passwd", 0, 0, 4),
           FS_DIRECTORY_UNOBTAINABLE);
    expect("GetEntryType(relative)", path_command(fs, 7, "relative", 0, 0, 4), FS_INVALID_PATH_FORMAT);
    expect("GetEntryType(/c:/windows)", path_command(fs, 7, "/c:/windows", 0, 0, 4), FS_INVALID_CHARACTER);
    expect("GetEntryType(/./progress/)", path_command(fs, 7, "/./progress/", 0, 0, 4), RESULT_SUCCESS);
    memcpy(&kind, reply.data, 4);
    check(kind == 1, "a file");
    expect("DeleteDirectory(/)", path_command(fs, 3, "/", 0, 0, 0), FS_DIRECTORY_NOT_DELETABLE);
    expect("CreateFile(/progress) again", path_command(fs, 0, "/progress", create, 16, 0), FS_PATH_ALREADY_EXISTS);
    expect("CreateFile(/missing/file)", path_command(fs, 0, "/missing/file", create, 16, 0), FS_PATH_NOT_FOUND);
    uint64_t huge[2] = {0, 1ull << 40};
    expect("CreateFile(/huge, 1 TiB)", path_command(fs, 0, "/huge", huge, 16, 0), FS_NOT_ENOUGH_FREE_SPACE);

    print("-- modes\n");
    file = open_file(fs, "/progress", MODE_READ);
    expect("Write to a read-only file", file_io(file, 1, 0, line, 6), FS_WRITE_NOT_PERMITTED);
    svc_close_handle(file);
    file = open_file(fs, "/progress", MODE_WRITE);
    expect("Read from a write-only file", file_io(file, 0, 0, text, 6), FS_READ_NOT_PERMITTED);
    expect("Write past the end without append", file_io(file, 1, 4, line, 6),
           FS_FILE_EXTENSION_WITHOUT_OPEN_MODE_ALLOW_APPEND);
    r = ipc_blank_request();
    expect("IFile::SetSize(1 TiB)", ipc_command(file, 3, &huge[1], 8, &r, 0, &reply), FS_NOT_ENOUGH_FREE_SPACE);
    r = ipc_blank_request();
    expect("IFile::GetSize", ipc_command(file, 4, 0, 0, &r, 8, &reply), RESULT_SUCCESS);
    check(out_u64() == 6, "6 bytes of progress");
    svc_close_handle(file);

    print("-- directories\n");
    expect("CreateDirectory(/dir)", path_command(fs, 2, "/dir", 0, 0, 0), RESULT_SUCCESS);
    expect("CreateFile(/dir/b)", path_command(fs, 0, "/dir/b", create, 16, 0), RESULT_SUCCESS);
    expect("CreateDirectory(/dir/a)", path_command(fs, 2, "/dir/a", 0, 0, 0), RESULT_SUCCESS);
    expect("DeleteDirectory(/dir)", path_command(fs, 3, "/dir", 0, 0, 0), FS_DIRECTORY_NOT_EMPTY);
    r = with_paths("/dir/b", "/dir/c");
    expect("RenameFile(/dir/b, /dir/c)", ipc_command(fs, 5, 0, 0, &r, 0, &reply), RESULT_SUCCESS);
    uint32_t both = 3;
    expect("OpenDirectory(/dir)", path_command(fs, 9, "/dir", &both, 4, 0), RESULT_SUCCESS);
    Handle directory = reply.move_handles[0];
    static uint8_t entries[4][0x310];
    r = ipc_blank_request();
    r.num_receives = 1;
    r.receives[0] = (IpcBuffer){(uint64_t)entries, sizeof entries};
    expect("IDirectory::Read", ipc_command(directory, 0, 0, 0, &r, 8, &reply), RESULT_SUCCESS);
    uint64_t count = out_u64();
    for (uint64_t i = 0; i < count; i++) {
        print("entry: ");
        print((const char *)entries[i]);
        print(entries[i][0x304] ? " (file, " : " (directory, ");
        uint64_t size;
        memcpy(&size, entries[i] + 0x308, 8);
        print_u64(size);
        print(" bytes)\n");
    }
    svc_close_handle(directory);
    expect("DeleteDirectoryRecursively(/dir)", path_command(fs, 4, "/dir", 0, 0, 0), RESULT_SUCCESS);
    svc_close_handle(fs);
}

/* A PFS0 of two files: hello.txt (20 bytes) and meta.cnmt (4 bytes). Header, two 0x18-byte entries (data offset,
 * size, name offset), a 0x20-byte string table, the data. */
static uint8_t package[0x10 + 2 * 0x18 + 0x20 + 24];

static void make_package(void) {
    uint32_t header[4] = {0x30534650u /* "PFS0" */, 2, 0x20, 0};
    memcpy(package, header, sizeof header);
    uint64_t entries[6] = {0, 20, 0, 20, 4, 10};
    for (int i = 0; i < 2; i++) {
        memcpy(package + 0x10 + 0x18 * i, &entries[3 * i], 16);
        uint32_t name[2] = {(uint32_t)entries[3 * i + 2], 0};
        memcpy(package + 0x10 + 0x18 * i + 16, name, 8);
    }
    memcpy(package + 0x40, "hello.txt\0meta.cnmt\0", 20);
    memcpy(package + 0x60, "hello from a package\x01\x02\x03\x04", 24);
}

/* Writes `bytes` as a new file at `path` on the card (replacing what was there). */
static void write_file(Handle sd, const char *path, const void *bytes, uint64_t size) {
    path_command(sd, 1, path, 0, 0, 0);
    uint64_t create[2] = {0, 0};
    expect("CreateFile", path_command(sd, 0, path, create, 16, 0), RESULT_SUCCESS);
    Handle file = open_file(sd, path, MODE_WRITE | MODE_APPEND);
    expect("Write", file_io(file, 1, 0, (void *)bytes, size), RESULT_SUCCESS);
    svc_close_handle(file);
}

/* A file larger than the host's pieces (1 MiB), written in one Write and read back in one Read, byte for byte. */
static uint8_t large[0x180013], large_back[0x180013];

static void large_file(Handle sd) {
    for (uint64_t i = 0; i < sizeof large; i++) large[i] = (uint8_t)(i * 7 + i / 4099);
    write_file(sd, "/tandem/large.bin", large, sizeof large);
    Handle file = open_file(sd, "/tandem/large.bin", MODE_READ);
    expect("Read(the large file)", file_io(file, 0, 0, large_back, sizeof large_back), RESULT_SUCCESS);
    check(memcmp(large, large_back, sizeof large) == 0, "the large file reads back as written");
    svc_close_handle(file);
    path_command(sd, 1, "/tandem/large.bin", 0, 0, 0);
}

/* OpenFileSystemWithId: command 8 (type, id) or 10 (content attributes, type, id), and the content path. */
static Result open_with_id(Handle fsp, uint32_t command, uint32_t type, uint64_t id, const char *path) {
    struct {
        uint32_t first, second;
        uint64_t id;
    } arguments = {command == 8 ? type : 0, command == 8 ? 0 : type, id};
    return path_command(fsp, command, path, &arguments, sizeof arguments, 0);
}

static void open_packages(Handle fsp, Handle sd) {
    make_package();
    write_file(sd, "/tandem/package.nsp", package, sizeof package);
    write_file(sd, "/tandem/broken.nsp", "HFS1 is not a PFS0", 18);
    const char *path = "@Sdcard:/tandem/package.nsp";
    expect("OpenFileSystemWithId(type Rom)", open_with_id(fsp, 8, 1, 0, path), FS_INVALID_ARGUMENT);
    expect("OpenFileSystemWithId(Control, id -1)", open_with_id(fsp, 8, FS_TYPE_CONTROL, ~0ull, path),
           FS_INVALID_ARGUMENT);
    expect("OpenFileSystemWithId(an unknown mount)", open_with_id(fsp, 8, FS_TYPE_PACKAGE, 0, "@Nowhere:/a.nsp"),
           FS_PATH_NOT_FOUND);
    expect("OpenFileSystemWithId(a directory)", open_with_id(fsp, 8, FS_TYPE_PACKAGE, 0, "@Sdcard:/tandem/"),
           FS_PERMISSION_DENIED);
    expect("OpenFileSystemWithId(not a package)", open_with_id(fsp, 8, FS_TYPE_PACKAGE, 0, "@Sdcard:/tandem/note.txt"),
           FS_PATH_NOT_FOUND);
    expect("OpenFileSystemWithId(a package as Meta)", open_with_id(fsp, 8, FS_TYPE_META, 0, path), FS_INVALID_ARGUMENT);
    expect("OpenFileSystemWithId(an NCA on the card)",
           open_with_id(fsp, 8, FS_TYPE_META, 0, "@Sdcard:/tandem/content.nca"),
           FS_UNEXPECTED_IN_NCA_FILE_SYSTEM_SERVICE_IMPL_A);
    expect("OpenFileSystemWithId(a missing package)",
           open_with_id(fsp, 8, FS_TYPE_PACKAGE, 0, "@Sdcard:/tandem/missing.nsp"), FS_PATH_NOT_FOUND);
    expect("OpenFileSystemWithId(not a PFS0)", open_with_id(fsp, 8, FS_TYPE_PACKAGE, 0, "@Sdcard:/tandem/broken.nsp"),
           FS_INVALID_PARTITION_FILE_SYSTEM_MAGIC);
    expect("OpenFileSystemWithId(command 10)", open_with_id(fsp, 10, FS_TYPE_PACKAGE, 0, path), RESULT_SUCCESS);
    svc_close_handle(reply.move_handles[0]);
    expect("OpenFileSystemWithId(command 8)", open_with_id(fsp, 8, FS_TYPE_PACKAGE, 0, path), RESULT_SUCCESS);
    Handle fs = reply.move_handles[0];
    uint32_t files = 2;
    expect("OpenDirectory(/)", path_command(fs, 9, "/", &files, 4, 0), RESULT_SUCCESS);
    Handle directory = reply.move_handles[0];
    static uint8_t entries[4][0x310];
    IpcRequest r = ipc_blank_request();
    r.num_receives = 1;
    r.receives[0] = (IpcBuffer){(uint64_t)entries, sizeof entries};
    expect("IDirectory::Read", ipc_command(directory, 0, 0, 0, &r, 8, &reply), RESULT_SUCCESS);
    uint64_t count = out_u64(), size;
    for (uint64_t i = 0; i < count; i++) {
        memcpy(&size, entries[i] + 0x308, 8);
        print("package entry: ");
        print((const char *)entries[i]);
        print(", ");
        print_u64(size);
        print(" bytes\n");
    }
    check(count == 2 && memcmp(entries[0], "hello.txt", 10) == 0 && memcmp(entries[1], "meta.cnmt", 10) == 0,
          "the package lists its files in order");
    svc_close_handle(directory);
    expect("GetEntryType(/meta.cnmt)", path_command(fs, 7, "/meta.cnmt", 0, 0, 4), RESULT_SUCCESS);
    expect("GetEntryType(/nothing)", path_command(fs, 7, "/nothing", 0, 0, 4), FS_PATH_NOT_FOUND);
    uint64_t create[2] = {0, 0};
    expect("CreateFile in a package", path_command(fs, 0, "/new", create, 16, 0),
           FS_UNSUPPORTED_WRITE_FOR_PARTITION_FILE_SYSTEM);
    Handle hello = open_file(fs, "/hello.txt", MODE_READ);
    memset(text, 0, sizeof text);
    expect("Read(/hello.txt)", file_io(hello, 0, 6, text, 64), RESULT_SUCCESS);
    check(out_u64() == 14 && memcmp(text, "from a package", 15) == 0, "the file's bytes from offset 6");
    print("package file: \"");
    print((const char *)text);
    print("\"\n");
    expect("Write(/hello.txt) opened for reading", file_io(hello, 1, 0, text, 1), FS_WRITE_NOT_PERMITTED);
    svc_close_handle(hello);
    svc_close_handle(fs);
}

int main(void) {
    Handle sm, fsp;
    uint64_t reserved = 0;
    check(svc_connect_to_named_port(&sm, "sm:") == 0, "connect");
    IpcRequest r = ipc_blank_request();
    r.send_pid = 1;
    check(ipc_command(sm, 0, &reserved, 8, &r, 0, &reply) == 0, "RegisterClient");
    uint64_t name = ipc_service_name("fsp-srv");
    r = ipc_blank_request();
    expect("GetServiceHandle(fsp-srv)", ipc_command(sm, 1, &name, 8, &r, 0, &reply), RESULT_SUCCESS);
    fsp = reply.move_handles[0];
    r = ipc_blank_request();
    r.send_pid = 1;
    expect("SetCurrentProcess", ipc_command(fsp, 1, &reserved, 8, &r, 0, &reply), RESULT_SUCCESS);

    print("-- romfs\n");
    read_romfs(fsp);

    print("-- save data\n");
    Handle existing;
    Result rc = try_open_save(fsp, &existing);
    if (rc == FS_TARGET_NOT_FOUND) {
        print("save: none yet\n");
        r = ipc_blank_request();
        expect("CreateSaveDataFileSystem", ipc_command(fsp, 22, save_arguments + 8, 0x90, &r, 0, &reply), RESULT_SUCCESS);
        expect("CreateSaveDataFileSystem again", ipc_command(fsp, 22, save_arguments + 8, 0x90, &r, 0, &reply),
               FS_PATH_ALREADY_EXISTS);
        print("save: created\n");
    } else {
        expect("OpenSaveDataFileSystem", rc, RESULT_SUCCESS);
        svc_close_handle(existing);
        print("save: found\n");
    }
    use_save(fsp);

    print("-- the SD card\n");
    r = ipc_blank_request();
    expect("OpenSdCardFileSystem", ipc_command(fsp, 18, 0, 0, &r, 0, &reply), RESULT_SUCCESS);
    Handle sd = reply.move_handles[0];
    Result exists = path_command(sd, 7, "/tandem/note.txt", 0, 0, 4);
    if (exists != 0) {
        expect("GetEntryType(/tandem/note.txt) on a new card", exists, FS_PATH_NOT_FOUND);
        expect("CreateDirectory(/tandem)", path_command(sd, 2, "/tandem", 0, 0, 0), RESULT_SUCCESS);
        uint64_t create[2] = {0, 0};
        expect("CreateFile(/tandem/note.txt)", path_command(sd, 0, "/tandem/note.txt", create, 16, 0), RESULT_SUCCESS);
        Handle note = open_file(sd, "/tandem/note.txt", MODE_WRITE | MODE_APPEND);
        static const char words[] = "written by fs.nro";
        expect("Write(/tandem/note.txt)", file_io(note, 1, 0, (void *)words, sizeof words - 1), RESULT_SUCCESS);
        svc_close_handle(note);
        print("sd: note written\n");
    } else {
        Handle note = open_file(sd, "/tandem/note.txt", MODE_READ);
        memset(text, 0, sizeof text);
        check(file_io(note, 0, 0, text, 64) == 0, "read the note");
        print("sd: note = \"");
        print((const char *)text);
        print("\"\n");
        svc_close_handle(note);
    }
    print("-- packages\n");
    open_packages(fsp, sd);
    print("-- a large file\n");
    large_file(sd);
    svc_close_handle(sd);

    svc_close_handle(fsp);
    svc_close_handle(sm);
    print("fs: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
