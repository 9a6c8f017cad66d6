// Writes every sample of a multisampled colour target from a buffer (Vulkan copies no buffer into a
// multisampled image). Drawn over a view of one layer in an unsigned-integer format of the texels' size, with
// sample shading, so that each sample takes its own bits exactly.
//
// The buffer: pixel after pixel of the layer, row by row, each pixel's samples in order, each sample
// `words_per_sample` 32-bit words (texels of 1 or 2 bytes zero-extended to one word).
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Words {
    uint words[];
};

layout(push_constant) uniform Grid {
    uvec2 texels;
    uint width;
    uint samples;
    uint words_per_sample;
};

layout(location = 0) out uvec4 color;

void main() {
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    uint first = ((pixel.y * width + pixel.x) * samples + uint(gl_SampleID)) * words_per_sample;
    Words data = Words(texels);
    uvec4 value = uvec4(0);
    for (uint word = 0; word < words_per_sample; ++word) {
        value[word] = data.words[first + word];
    }
    color = value;
}
