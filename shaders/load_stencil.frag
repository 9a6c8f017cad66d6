// Sets bit `bit` of every sample's stencil of a multisampled depth/stencil target from a buffer (one word a
// sample, laid out as load_samples.frag's): drawn once a bit, with the stencil test ALWAYS, REPLACE with
// reference 0xFF through a write mask of that bit, over stencil cleared to 0; a sample whose bit is clear is
// discarded (per-sample shading discards only that sample). Writing the stencil from the shader would need
// VK_EXT_shader_stencil_export, which NVIDIA's driver lacks.
#version 450
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Words {
    uint words[];
};

layout(push_constant) uniform Grid {
    uvec2 stencil;
    uint width;
    uint samples;
    uint bit;
};

void main() {
    uvec2 pixel = uvec2(gl_FragCoord.xy);
    uint index = (pixel.y * width + pixel.x) * samples + uint(gl_SampleID);
    if ((Words(stencil).words[index] >> bit & 1u) == 0u) {
        discard;
    }
}
