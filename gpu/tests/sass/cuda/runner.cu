// Runs the kernels of gpu/tests/sass on a real GPU as runs.txt describes, and writes what each launch leaves in
// its buffers: OUTDIR/ENTRY.out = out, in and gen after the launch, 64 KiB each, then each surface's texels,
// concatenated.
//
//   runner SASS_DIR OUTDIR      (SASS_DIR: gpu/tests/sass; built and run by run-on-device.sh)
//
// Only the CUDA driver API: the driver JIT-compiles each kernel's PTX (kernels/FILE.ptx, or cuda/ptx/FILE.ptx for
// the .cu kernels) for the device's own architecture. Each run gets the primary context afresh (reset after a
// failure, so one faulting kernel does not take the others with it). Exits with 1 if any run failed.

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static const size_t kBufferSize = 64 * 1024;

// textures=KIND:WxHxD:LAYERS:LEVELS (runs.txt): RGBA32F texels, KIND 2d, 3d or cube.
struct Texture {
    std::string kind;
    unsigned width = 1, height = 1, depth = 1, layers = 1, levels = 1;
};

// surfaces=KIND:WxHxD:LAYERS:FORMAT (runs.txt): KIND 1d, 2d or 3d; FORMAT r8, r16, r32, rg32 or rgba32 (unsigned
// integer channels).
struct Surface {
    std::string kind, format;
    unsigned width = 1, height = 1, depth = 1, layers = 1;
    unsigned texel_bytes() const {
        return format == "r8" ? 1 : format == "r16" ? 2 : format == "r32" ? 4 : format == "rg32" ? 8 : 16;
    }
    size_t bytes() const { return size_t(width) * height * depth * layers * texel_bytes(); }
};

struct Run {
    std::string file, entry;
    std::vector<std::string> params;
    unsigned block[3] = {1, 1, 1}, grid[3] = {1, 1, 1};
    bool init_in = false;
    std::vector<Texture> textures;
    std::vector<Surface> surfaces;
};

static bool read_file(const std::string &path, std::string &contents) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream text;
    text << in.rdbuf();
    contents = text.str();
    return true;
}

static bool parse_dims(const std::string &text, unsigned dims[3]) {
    return sscanf(text.c_str(), "%u,%u,%u", &dims[0], &dims[1], &dims[2]) == 3;
}

static std::vector<std::string> split(const std::string &text, char separator) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
    return parts;
}

// The lines of runs.txt (blank lines and # comments skipped); exits on a malformed line.
static std::vector<Run> parse_runs(const std::string &text) {
    std::vector<Run> runs;
    int number = 0;
    for (const std::string &line : split(text, '\n')) {
        number++;
        std::istringstream words(line);
        Run run;
        if (!(words >> run.file) || run.file[0] == '#') continue;
        bool ok = static_cast<bool>(words >> run.entry);
        for (std::string word; ok && words >> word;) {
            size_t equals = word.find('=');
            std::string key = word.substr(0, equals), value = equals == std::string::npos ? "" : word.substr(equals + 1);
            if (key == "params") run.params = split(value, ',');
            else if (key == "block") ok = parse_dims(value, run.block);
            else if (key == "grid") ok = parse_dims(value, run.grid);
            else if (key == "init") {
                run.init_in = value == "in";
                ok = run.init_in || value == "zero";
            }
            else if (key == "textures") {
                for (const std::string &item : split(value, ',')) {
                    Texture texture;
                    char kind[8] = "";
                    ok = ok && sscanf(item.c_str(), "%7[a-z0-9]:%ux%ux%u:%u:%u", kind, &texture.width, &texture.height,
                                      &texture.depth, &texture.layers, &texture.levels) == 6;
                    texture.kind = kind;
                    ok = ok && (texture.kind == "2d" || texture.kind == "3d" || texture.kind == "cube");
                    run.textures.push_back(texture);
                }
            }
            else if (key == "surfaces") {
                for (const std::string &item : split(value, ',')) {
                    Surface surface;
                    char kind[8] = "", format[8] = "";
                    ok = ok && sscanf(item.c_str(), "%7[a-z0-9]:%ux%ux%u:%u:%7[a-z0-9]", kind, &surface.width,
                                      &surface.height, &surface.depth, &surface.layers, format) == 6;
                    surface.kind = kind;
                    surface.format = format;
                    ok = ok && (surface.kind == "1d" || surface.kind == "2d" || surface.kind == "3d");
                    ok = ok && (surface.format == "r8" || surface.format == "r16" || surface.format == "r32" ||
                                surface.format == "rg32" || surface.format == "rgba32");
                    run.surfaces.push_back(surface);
                }
            }
            else ok = key == "stride" || key == "approx" || key == "approx16" || key == "varies" || key == "nan";
        }
        if (!ok) {
            fprintf(stderr, "runs.txt:%d: cannot read this line\n", number);
            exit(2);
        }
        runs.push_back(run);
    }
    return runs;
}

static bool check(CUresult result, const Run &run, const char *what) {
    if (result == CUDA_SUCCESS) return true;
    const char *name = "?", *description = "?";
    cuGetErrorName(result, &name);
    cuGetErrorString(result, &description);
    fprintf(stderr, "%s: %s: %s (%s)\n", run.entry.c_str(), what, name, description);
    return false;
}

// Creates texture `number` of the run as a mipmapped array and a texture object (point filtering, clamped
// addressing, normalized coordinates). Word k of its texels (levels in order, each level's layers or cube faces,
// slices, rows and texels in order) is the FP32 value number * 4096 + k + 0.25, as gpu/src/sass/corpus.rs makes
// them.
static bool make_texture(const Run &run, unsigned number, CUmipmappedArray *array, CUtexObject *object) {
    const Texture &texture = run.textures[number];
    bool cube = texture.kind == "cube", volume = texture.kind == "3d";
    unsigned faces = cube ? 6 : 1;
    CUDA_ARRAY3D_DESCRIPTOR shape = {};
    shape.Width = texture.width;
    shape.Height = texture.height;
    shape.Depth = volume ? texture.depth : (cube || texture.layers > 1 ? texture.layers * faces : 0);
    shape.Format = CU_AD_FORMAT_FLOAT;
    shape.NumChannels = 4;
    shape.Flags = (texture.layers > 1 ? CUDA_ARRAY3D_LAYERED : 0) | (cube ? CUDA_ARRAY3D_CUBEMAP : 0);
    if (!check(cuMipmappedArrayCreate(array, &shape, texture.levels), run, "creating a texture")) return false;
    uint32_t word = 0;
    for (unsigned level = 0; level < texture.levels; level++) {
        size_t width = std::max(texture.width >> level, 1u), height = std::max(texture.height >> level, 1u);
        size_t slices = (volume ? std::max(texture.depth >> level, 1u) : 1) * texture.layers * faces;
        std::vector<float> texels(width * height * slices * 4);
        for (float &texel : texels) texel = float(number * 4096 + word++) + 0.25f;
        CUarray level_array;
        if (!check(cuMipmappedArrayGetLevel(&level_array, *array, level), run, "finding a texture level"))
            return false;
        CUDA_MEMCPY3D copy = {};
        copy.srcMemoryType = CU_MEMORYTYPE_HOST;
        copy.srcHost = texels.data();
        copy.srcPitch = width * 16;
        copy.srcHeight = height;
        copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.dstArray = level_array;
        copy.WidthInBytes = width * 16;
        copy.Height = height;
        copy.Depth = slices;
        if (!check(cuMemcpy3D(&copy), run, "filling a texture")) return false;
    }
    CUDA_RESOURCE_DESC resource = {};
    resource.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    resource.res.mipmap.hMipmappedArray = *array;
    CUDA_TEXTURE_DESC sampler = {};
    for (CUaddress_mode &mode : sampler.addressMode) mode = CU_TR_ADDRESS_MODE_CLAMP;
    sampler.filterMode = CU_TR_FILTER_MODE_POINT;
    sampler.mipmapFilterMode = CU_TR_FILTER_MODE_POINT;
    sampler.flags = CU_TRSF_NORMALIZED_COORDINATES;
    sampler.maxMipmapLevelClamp = float(texture.levels - 1);
    return check(cuTexObjectCreate(object, &resource, &sampler, nullptr), run, "creating a texture object");
}

// Copies surface `surface`'s texels between its array and `bytes` (layers, slices, rows and texels in order).
static bool copy_surface(const Run &run, const Surface &surface, CUarray array, std::vector<uint8_t> &bytes,
                         bool to_array) {
    CUDA_MEMCPY3D copy = {};
    size_t row = size_t(surface.width) * surface.texel_bytes();
    if (to_array) {
        copy.srcMemoryType = CU_MEMORYTYPE_HOST;
        copy.srcHost = bytes.data();
        copy.srcPitch = row;
        copy.srcHeight = surface.height;
        copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.dstArray = array;
    } else {
        copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        copy.srcArray = array;
        copy.dstMemoryType = CU_MEMORYTYPE_HOST;
        copy.dstHost = bytes.data();
        copy.dstPitch = row;
        copy.dstHeight = surface.height;
    }
    copy.WidthInBytes = row;
    copy.Height = surface.height;
    copy.Depth = surface.depth * surface.layers;
    return check(cuMemcpy3D(&copy), run, to_array ? "filling a surface" : "reading back a surface");
}

// Creates surface `number` of the run as an array and a surface object. Byte k of its texels (layers, slices, rows
// and texels in order) is (7k + 16 * number + 3) mod 251, as gpu/src/sass/corpus.rs makes them.
static bool make_surface(const Run &run, unsigned number, CUarray *array, CUsurfObject *object) {
    const Surface &surface = run.surfaces[number];
    CUDA_ARRAY3D_DESCRIPTOR shape = {};
    shape.Width = surface.width;
    shape.Height = surface.kind == "1d" ? 0 : surface.height;
    shape.Depth = surface.kind == "3d" ? surface.depth : (surface.layers > 1 ? surface.layers : 0);
    unsigned bytes = surface.texel_bytes();
    shape.Format = bytes == 1 ? CU_AD_FORMAT_UNSIGNED_INT8 : bytes == 2 ? CU_AD_FORMAT_UNSIGNED_INT16
                                                                         : CU_AD_FORMAT_UNSIGNED_INT32;
    shape.NumChannels = bytes <= 4 ? 1 : bytes / 4;
    shape.Flags = CUDA_ARRAY3D_SURFACE_LDST | (surface.layers > 1 ? CUDA_ARRAY3D_LAYERED : 0);
    if (!check(cuArray3DCreate(array, &shape), run, "creating a surface")) return false;
    std::vector<uint8_t> texels(surface.bytes());
    for (size_t k = 0; k < texels.size(); k++) texels[k] = uint8_t((7 * k + 16 * number + 3) % 251);
    if (!copy_surface(run, surface, *array, texels, true)) return false;
    CUDA_RESOURCE_DESC resource = {};
    resource.resType = CU_RESOURCE_TYPE_ARRAY;
    resource.res.array.hArray = *array;
    return check(cuSurfObjectCreate(object, &resource), run, "creating a surface object");
}

// One launch; writes OUTDIR/ENTRY.out. False (with a message) if anything failed.
static bool execute(CUdevice device, const std::string &sass_dir, const std::string &out_dir, const Run &run,
                    const std::string &input) {
    std::string ptx;
    if (!read_file(sass_dir + "/kernels/" + run.file + ".ptx", ptx) &&
        !read_file(sass_dir + "/cuda/ptx/" + run.file + ".ptx", ptx)) {
        fprintf(stderr, "%s: no PTX for %s\n", run.entry.c_str(), run.file.c_str());
        return false;
    }
    CUcontext context;
    if (!check(cuDevicePrimaryCtxRetain(&context, device), run, "retaining the context") ||
        !check(cuCtxSetCurrent(context), run, "making the context current"))
        return false;

    char log[8192] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof log)};
    CUmodule module = nullptr;
    CUfunction function;
    CUdeviceptr buffers[3] = {0, 0, 0};  // out, in, gen
    std::vector<char> zeros(kBufferSize, 0), results(3 * kBufferSize);
    bool ok = check(cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values), run, "JIT-compiling the PTX") &&
              check(cuModuleGetFunction(&function, module, run.entry.c_str()), run, "finding the entry");
    if (!ok && log[0]) fprintf(stderr, "%s\n", log);
    for (int i = 0; ok && i < 3; i++) ok = check(cuMemAlloc(&buffers[i], kBufferSize), run, "allocating");
    std::vector<CUmipmappedArray> arrays(run.textures.size(), nullptr);
    std::vector<CUtexObject> objects(run.textures.size(), 0);
    for (unsigned i = 0; ok && i < run.textures.size(); i++) ok = make_texture(run, i, &arrays[i], &objects[i]);
    std::vector<CUarray> surface_arrays(run.surfaces.size(), nullptr);
    std::vector<CUsurfObject> surfaces(run.surfaces.size(), 0);
    for (unsigned i = 0; ok && i < run.surfaces.size(); i++)
        ok = make_surface(run, i, &surface_arrays[i], &surfaces[i]);
    ok = ok && check(cuMemcpyHtoD(buffers[0], run.init_in ? input.data() : zeros.data(), kBufferSize), run, "copying") &&
         check(cuMemcpyHtoD(buffers[1], input.data(), kBufferSize), run, "copying") &&
         check(cuMemcpyHtoD(buffers[2], zeros.data(), kBufferSize), run, "copying");

    // Every parameter is a 64-bit address, texture or surface object, or a 32-bit value; the driver takes each one's size from
    // the kernel.
    std::vector<uint64_t> arguments(run.params.size());
    std::vector<void *> pointers(run.params.size());
    for (size_t i = 0; ok && i < run.params.size(); i++) {
        const std::string &param = run.params[i];
        size_t plus = param.find('+');
        std::string buffer = param.substr(0, plus);
        uint64_t offset = plus == std::string::npos ? 0 : strtoull(param.c_str() + plus + 1, nullptr, 0);
        if (param.compare(0, 2, "n=") == 0) arguments[i] = strtoul(param.c_str() + 2, nullptr, 0);
        else if (param.compare(0, 4, "tex=") == 0 && strtoul(param.c_str() + 4, nullptr, 0) < objects.size())
            arguments[i] = objects[strtoul(param.c_str() + 4, nullptr, 0)];
        else if (param.compare(0, 5, "surf=") == 0 && strtoul(param.c_str() + 5, nullptr, 0) < surfaces.size())
            arguments[i] = surfaces[strtoul(param.c_str() + 5, nullptr, 0)];
        else if (buffer == "out") arguments[i] = buffers[0] + offset;
        else if (buffer == "in") arguments[i] = buffers[1] + offset;
        else if (buffer == "gen") arguments[i] = buffers[2] + offset;
        else {
            fprintf(stderr, "%s: unknown parameter %s\n", run.entry.c_str(), param.c_str());
            ok = false;
        }
        pointers[i] = &arguments[i];
    }
    ok = ok &&
         check(cuLaunchKernel(function, run.grid[0], run.grid[1], run.grid[2], run.block[0], run.block[1],
                              run.block[2], 0, nullptr, pointers.data(), nullptr),
               run, "launching") &&
         check(cuCtxSynchronize(), run, "running");
    for (int i = 0; ok && i < 3; i++)
        ok = check(cuMemcpyDtoH(&results[i * kBufferSize], buffers[i], kBufferSize), run, "reading back");
    for (unsigned i = 0; ok && i < run.surfaces.size(); i++) {
        std::vector<uint8_t> texels(run.surfaces[i].bytes());
        ok = copy_surface(run, run.surfaces[i], surface_arrays[i], texels, false);
        results.insert(results.end(), texels.begin(), texels.end());
    }
    if (ok) {
        std::string path = out_dir + "/" + run.entry + ".out";
        std::ofstream file(path, std::ios::binary);
        file.write(results.data(), results.size());
        if (!file) {
            fprintf(stderr, "cannot write %s\n", path.c_str());
            ok = false;
        }
    }
    if (ok) {
        for (CUdeviceptr buffer : buffers) cuMemFree(buffer);
        for (CUtexObject object : objects) cuTexObjectDestroy(object);
        for (CUmipmappedArray array : arrays) cuMipmappedArrayDestroy(array);
        for (CUsurfObject surface : surfaces) cuSurfObjectDestroy(surface);
        for (CUarray array : surface_arrays) cuArrayDestroy(array);
        cuModuleUnload(module);
        cuDevicePrimaryCtxRelease(device);
    } else {
        cuDevicePrimaryCtxRelease(device);
        cuDevicePrimaryCtxReset(device);  // frees everything; clears a sticky error
    }
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: runner SASS_DIR OUTDIR\n");
        return 2;
    }
    std::string sass_dir = argv[1], out_dir = argv[2], manifest, input;
    if (!read_file(sass_dir + "/runs.txt", manifest) || !read_file(sass_dir + "/cuda/input.bin", input) ||
        input.size() != kBufferSize) {
        fprintf(stderr, "cannot read %s/runs.txt and a 64 KiB %s/cuda/input.bin\n", argv[1], argv[1]);
        return 2;
    }
    CUdevice device;
    CUresult result = cuInit(0);
    if (result == CUDA_SUCCESS) result = cuDeviceGet(&device, 0);
    if (result != CUDA_SUCCESS) {
        fprintf(stderr, "no CUDA device (error %d)\n", result);
        return 2;
    }
    int failures = 0;
    for (const Run &run : parse_runs(manifest)) {
        bool ok = execute(device, sass_dir, out_dir, run, input);
        printf("%-14s %s\n", run.entry.c_str(), ok ? "ok" : "FAILED");
        fflush(stdout);
        failures += !ok;
    }
    return failures ? 1 : 0;
}
