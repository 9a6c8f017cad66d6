// load_depth.frag for targets with stencil: each sample's stencil too, from a second buffer (one word a
// sample), as the stencil reference that the stencil test (ALWAYS, REPLACE) writes (VK_EXT_shader_stencil_export).
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_ARB_shader_stencil_export : require

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Words {
    uint words[];
};

layout(push_constant) uniform Grid {
    uvec2 depth;
    uvec2 stencil;
    uint width;
    uint samples;
};

void main() {
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    uint index = (pixel.y * width + pixel.x) * samples + uint(gl_SampleID);
    gl_FragDepth = uintBitsToFloat(Words(depth).words[index]);
    gl_FragStencilRefARB = int(Words(stencil).words[index]);
}
