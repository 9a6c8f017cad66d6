// Reads every sample's depth of one layer of a multisampled depth target (a view of its depth aspect) into a
// buffer of FP32 bits laid out as store_samples.comp's words (one word a sample).
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 8, local_size_y = 8) in;

layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer Words {
    uint words[];
};

layout(set = 0, binding = 0) uniform texture2DMS target;

layout(push_constant) uniform Grid {
    uvec2 texels;
    uint width;
    uint samples;
    uint words_per_sample;
    uint height;
};

void main() {
    uvec2 pixel = gl_GlobalInvocationID.xy;
    if (pixel.x >= width || pixel.y >= height) {
        return;
    }
    Words data = Words(texels);
    for (uint sample_index = 0; sample_index < samples; ++sample_index) {
        float depth = texelFetch(target, ivec2(pixel), int(sample_index)).r;
        data.words[(pixel.y * width + pixel.x) * samples + sample_index] = floatBitsToUint(depth);
    }
}
