// Reads every sample of one layer of a multisampled colour target (through a view in an unsigned-integer format
// of the texels' size) into a buffer laid out as load_samples.frag reads it.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 8, local_size_y = 8) in;

layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer Words {
    uint words[];
};

layout(set = 0, binding = 0) uniform utexture2DMS target;

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
        uvec4 value = texelFetch(target, ivec2(pixel), int(sample_index));
        uint first = ((pixel.y * width + pixel.x) * samples + sample_index) * words_per_sample;
        for (uint word = 0; word < words_per_sample; ++word) {
            data.words[first + word] = value[word];
        }
    }
}
