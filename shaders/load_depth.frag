// Writes every sample's depth of a multisampled depth target from a buffer of FP32 bits, laid out as
// load_samples.frag's words (one word a sample); drawn with the depth test ALWAYS and depth writes on, its
// stencil (if any) cleared for load_stencil.frag's passes.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Words {
    uint words[];
};

layout(push_constant) uniform Grid {
    uvec2 depth;
    uint width;
    uint samples;
};

void main() {
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    uint index = (pixel.y * width + pixel.x) * samples + uint(gl_SampleID);
    gl_FragDepth = uintBitsToFloat(Words(depth).words[index]);
}
