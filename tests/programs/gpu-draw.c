/* Draws through the 3D class (open-gpu-doc clb197.h's methods, set up as NVIDIA's own 3D driver and NVK program
 * them), with shaders from Tandem's assembler (shaders/NAME.sasm: a header, then instructions by their decode-table
 * names; the .bin files are what they assemble to). Every pixel is checked against what the draw's definition
 * gives, computed here:
 * - coverage: a pixel is drawn when its centre is inside the triangle by the three edge functions. The vertices
 *   lie on a 1/16-pixel grid, so the rasteriser's snapping changes nothing, and no centre lies on an edge, so no
 *   tie rule decides anything (checked here too);
 * - colours: UNORM8 encodings of the vertices' colours (Vulkan's round(f x 255)), chosen so that interpolating a
 *   colour that is the same at every vertex cannot move it to another step; flat shading takes the first
 *   vertex's (SET_PROVOKING_VERTEX's default, FIRST), or with LAST the last's; additive blending adds and
 *   clamps; write masks keep the channels they leave out; a logic op (SET_LOGIC_OP) combines the colour's UNORM8
 *   bits with the target's (XOR: s ^ d; COPY_INVERTED: ~s);
 * - the pixels outside keep their bytes;
 * - a pixel program's KIL (SM5x) or KILL (SM86) ends its invocation: those pixels keep their bytes too;
 * - textures (headers and samplers in pools as clb097tex.h lays them out, handles in the pixel stage's constant
 *   buffer 0): each pixel of a quad reads the texel its texture coordinate falls in (nearest filtering, pixel
 *   centres never on a texel edge), decoded by the format's definition (UNORM c / (2^n - 1), rounded to the
 *   nearest single-precision value, computed here in integers) into a float target, swizzled as the header
 *   says; block-linear texels are placed by the runtime's own block-linear formula, a level's block shrinking to
 *   fit it; coordinates past the edge wrap, clamp or read the sampler's border colour; a depth compare (TEX.DC)
 *   gives 1.0 where the reference passes the sampler's comparison with the texel's depth, else 0.0; a gather
 *   (TLD4S, TLD4) gives one component of the 2x2 texels a bilinear sample reads (with per-texel offsets, PTP,
 *   each the first texel of its own moved footprint; from a layer of a 2D array); explicit derivatives (TXD) pick the
 *   level they span; a target a draw rendered, sampled after INVALIDATE_TEXTURE_DATA_CACHE, reads as drawn, a
 *   2D target and a slice of a 3D one alike;
 * - depth and stencil (a Z24S8 target, block-linear): a LESS test lets a primitive through where it is nearer
 *   than what was drawn before (the depths far apart, so no rounding decides), a stencil pass REPLACE writes the
 *   reference where a primitive covers and EQUAL draws only there; the target's untouched texels keep the clear's
 *   depth and stencil, and the stencil bits hold the reference where written;
 * - polygon offset: a draw's depths move, against the same draw without it, by SET_DEPTH_BIAS in D24 steps
 *   (as NVIDIA's Vulkan driver on the H200 moves them by twice its units, the register's value), by the slope factor times the depth slope, or by no more than the clamp; the depth bounds test
 *   lets a primitive through only where the stored depth is within the bounds, writing no depth;
 * - the alpha test: a primitive whose colour output 0 alpha fails the comparison with the reference draws nothing;
 * - primitive restart: a strip whose index is SET_DA_PRIMITIVE_RESTART_INDEX (compared as read: 0xFFFF among
 *   16-bit indices, 9 among 32-bit ones; a non-indexed launch's vertex number with _VERTEX_ARRAY) ends there and
 *   a new strip starts after it, so two rectangles are drawn and nothing joins them;
 * - points: SET_POINT_SIZE sizes them when the vertex program writes no size: squares of that side centred on
 *   the vertex (odd sizes at pixel centres, even ones at pixel corners, where every rule for points agrees), also
 *   where a geometry program emits them;
 * - culling: with back faces culled, the triangle is drawn under exactly one of the two front-face windings, and
 *   SET_WINDOW_ORIGIN's FLIP_Y swaps which (it turns the winding over; NVN sets it for GL's lower-left origin);
 * - a draw with no target bound still runs over viewport 0's area: the samples it counts are the triangle's pixels;
 * - depth modes: under SET_VIEWPORT_Z_CLIP -w..w, NDC z -0.5 and 0.5 land at depths 0.25 and 0.75; a position
 *   computed by two programs gives the same depth (EQUAL passes everywhere the first draw wrote);
 * - a program that outputs only some components of a target leaves the others, blending or not;
 * - SET_SINGLE_CT_WRITE_CONTROL masks every target with SET_CT_WRITE(0);
 * - conditional rendering: RENDER_IF_EQUAL and _NOT_EQUAL draw or not as the two 64-bit values compare;
 * - quads, quad strips and polygons cover what their triangles do;
 * - warp votes in a pixel program (VOTE.ALL, .ANY, .EQ and their ballots) agree with each pixel's predicate and
 *   with each other, and some subgroups hold pixels whose predicates differ; in a vertex program, with each
 *   vertex's;
 * - 3D and array targets: SET_COLOR_TARGET_LAYER picks the slice of a volume (placed by the block-linear volume
 *   layout) or the layer of an array the triangle lands in, and the others keep their bytes; a program's layer
 *   output (SET_RT_LAYER) sends each instance to its own layer;
 * - stream output: a strip's triangles land whole in the buffers in the order Vulkan captures them, the words
 *   the layout selects name, a primitive that does not fit one buffer in none; rasterisation off draws nothing
 *   but still captures; DRAW_AUTO draws as many vertices as the byte count report says;
 * - indirect draws: a macro (as drivers write them) draws with the counts, first vertex or index, vertex offset and
 *   first instance of an indirect buffer that a GPFIFO entry of its own hands it as parameters, written by the
 *   CPU or by a semaphore release;
 * - depth clamp: a triangle beyond the far plane (window z 1.25) is clipped away while SET_VIEWPORT_CLIP_CONTROL
 *   clips z, and drawn with depth 1.0 (D24 0xFFFFFF) once it clamps z instead;
 * - interpolation locations: IPA at an offset from the pixel centre and at the centroid reads generic 0 (linear
 *   across the target) within 2^-12 of its exact value there, and the position's x moved by the offset;
 * - SET_PS_SATURATE: a float target takes colour output 0 as it is, or clamped to [0, 1] or [-1, 1] when the
 *   register says so for output 0 (and not when it says so only for output 1);
 * - viewports: a vertex program's viewport index picks the viewport (its transform and its scissor) per primitive;
 * - geometry programs (pipeline slot 4, Maxwell and Ampere): two invocations of a program that reads each input
 *   vertex through ISBERD's handle and emits it, moved by its invocation's offset, draw the triangle twice;
 *   triangles with adjacency are drawn from their vertices 0, 2 and 4, by a geometry program or without one;
 * - tessellation (pipeline slots 2 and 3, SET_PATCH, SET_TESSELLATION_PARAMETERS): a patch of three control points
 *   passed through by the control program, at levels 1.0, and placed by the evaluation program at its domain
 *   coordinates, covers its triangle's pixels in the colour its per-patch words hand on;
 * - attributes at physical addresses: programs that reach them through AL2P, ALD/AST .PHYS and IPA.IDX draw the
 *   triangle as pass.vs and perspective.ps do;
 * - lines: an aliased line covers as many pixels of each column (row) as its width, rounded, says, by
 *   OpenGL's rule (SET_ALIASED_LINE_WIDTH_FLOAT when SET_ALIASED_LINE_WIDTH_ENABLE is on, else SET_LINE_WIDTH_FLOAT);
 * - targets without alpha (X8B8G8R8, X8R8G8B8): destination alpha reads 1.0 in blending, and the unused byte is
 *   kept; Z8R8G8B8 and O8R8G8B8 write zeros and ones there;
 * - targets that keep alpha elsewhere: B8G8R8A8's A, R, G, B bytes; A8's alpha alone, blended by the alpha
 *   equation with the stored alpha as destination alpha;
 * - an sRGB target stores the colour encoded by the sRGB transfer function, and blends in linear space;
 * - dual-source blending: SRC1 factors read colour output 1;
 * - one texture at two colour slots: each slot writes only the channels its SET_CT_WRITE enables;
 * - a pixel program's atomic adds to memory count the pixels it ran for;
 * - counters: the samples that passed (SET_ZPASS_PIXEL_COUNT) are the pixels the edge functions say were drawn and
 *   not hidden, the data assembler's vertices and primitives those launched, written by report semaphores. */
#include "ipc.h"
#include "nv.h"
#include "tandem.h"
#include "texture.h"

__asm__(".section .rodata\n"
        ".balign 16\n"
        "pass_vs: .incbin \"shaders/pass.vs.bin\"\n"
        "pass_vs_end:\n"
        "offset_vs: .incbin \"shaders/offset.vs.bin\"\n"
        "offset_vs_end:\n"
        "perspective_ps: .incbin \"shaders/perspective.ps.bin\"\n"
        "perspective_ps_end:\n"
        "flat_ps: .incbin \"shaders/flat.ps.bin\"\n"
        "flat_ps_end:\n"
        "texture_ps: .incbin \"shaders/texture.ps.bin\"\n"
        "texture_ps_end:\n"
        "texture_lod_ps: .incbin \"shaders/texture_lod.ps.bin\"\n"
        "texture_lod_ps_end:\n"
        "fetch_ps: .incbin \"shaders/fetch.ps.bin\"\n"
        "fetch_ps_end:\n"
        "two_ps: .incbin \"shaders/two.ps.bin\"\n"
        "two_ps_end:\n"
        "viewport_vs: .incbin \"shaders/viewport.vs.bin\"\n"
        "viewport_vs_end:\n"
        "rg_ps: .incbin \"shaders/rg.ps.bin\"\n"
        "rg_ps_end:\n"
        "shadow_ps: .incbin \"shaders/shadow.ps.bin\"\n"
        "shadow_ps_end:\n"
        "shadow_scalar_ps: .incbin \"shaders/shadow_scalar.ps.bin\"\n"
        "shadow_scalar_ps_end:\n"
        "gradient_ps: .incbin \"shaders/gradient.ps.bin\"\n"
        "gradient_ps_end:\n"
        "gather_ps: .incbin \"shaders/gather.ps.bin\"\n"
        "gather_ps_end:\n"
        "gather_offset_ps: .incbin \"shaders/gather_offset.ps.bin\"\n"
        "gather_offset_ps_end:\n"
        "count_ps: .incbin \"shaders/count.ps.bin\"\n"
        "count_ps_end:\n"
        "volume_ps: .incbin \"shaders/volume.ps.bin\"\n"
        "volume_ps_end:\n"
        "layer_vs: .incbin \"shaders/layer.vs.bin\"\n"
        "layer_vs_end:\n"
        "sample_ps: .incbin \"shaders/sample.ps.bin\"\n"
        "sample_ps_end:\n"
        "gather_ptp_ps: .incbin \"shaders/gather_ptp.ps.bin\"\n"
        "gather_ptp_ps_end:\n"
        "gather_ptp_compare_ps: .incbin \"shaders/gather_ptp_compare.ps.bin\"\n"
        "gather_ptp_compare_ps_end:\n"
        "gather_layer_ps: .incbin \"shaders/gather_layer.ps.bin\"\n"
        "gather_layer_ps_end:\n"
        "texture_offset_ps: .incbin \"shaders/texture_offset.ps.bin\"\n"
        "texture_offset_ps_end:\n"
        "fetch_offset_ps: .incbin \"shaders/fetch_offset.ps.bin\"\n"
        "fetch_offset_ps_end:\n"
        "fetch_offset_scalar_ps: .incbin \"shaders/fetch_offset_scalar.ps.bin\"\n"
        "fetch_offset_scalar_ps_end:\n"
        "texture_half_ps: .incbin \"shaders/texture_half.ps.bin\"\n"
        "texture_half_ps_end:\n"
        "gather_half_ps: .incbin \"shaders/gather_half.ps.bin\"\n"
        "gather_half_ps_end:\n"
        "bindless_ps: .incbin \"shaders/bindless.ps.bin\"\n"
        "bindless_ps_end:\n"
        "bindless_pair_ps: .incbin \"shaders/bindless_pair.ps.bin\"\n"
        "bindless_pair_ps_end:\n"
        "txq_ps: .incbin \"shaders/txq.ps.bin\"\n"
        "txq_ps_end:\n"
        "txq_bindless_ps: .incbin \"shaders/txq_bindless.ps.bin\"\n"
        "txq_bindless_ps_end:\n"
        "lod_query_ps: .incbin \"shaders/lod_query.ps.bin\"\n"
        "lod_query_ps_end:\n"
        "txq_level0_ps: .incbin \"shaders/txq_level0.ps.bin\"\n"
        "txq_level0_ps_end:\n"
        "bindless_runtime_ps: .incbin \"shaders/bindless_runtime.ps.bin\"\n"
        "bindless_runtime_ps_end:\n"
        "offset86_vs: .incbin \"shaders/offset86.vs.bin\"\n"
        "offset86_vs_end:\n"
        "surface_ps: .incbin \"shaders/surface.ps.bin\"\n"
        "surface_ps_end:\n"
        "pass86_vs: .incbin \"shaders/pass86.vs.bin\"\n"
        "pass86_vs_end:\n"
        "perspective86_ps: .incbin \"shaders/perspective86.ps.bin\"\n"
        "perspective86_ps_end:\n"
        "kill_ps: .incbin \"shaders/kill.ps.bin\"\n"
        "kill_ps_end:\n"
        "kill86_ps: .incbin \"shaders/kill86.ps.bin\"\n"
        "kill86_ps_end:\n"
        "indexed86_vs: .incbin \"shaders/indexed86.vs.bin\"\n"
        "indexed86_vs_end:\n"
        "lod_query86_ps: .incbin \"shaders/lod_query86.ps.bin\"\n"
        "lod_query86_ps_end:\n"
        "samples86_ps: .incbin \"shaders/samples86.ps.bin\"\n"
        "samples86_ps_end:\n"
        "copies_gs: .incbin \"shaders/copies.gs.bin\"\n"
        "copies_gs_end:\n"
        "copies86_gs: .incbin \"shaders/copies86.gs.bin\"\n"
        "copies86_gs_end:\n"
        "indexed_vs: .incbin \"shaders/indexed.vs.bin\"\n"
        "indexed_vs_end:\n"
        "indexed_ps: .incbin \"shaders/indexed.ps.bin\"\n"
        "indexed_ps_end:\n"
        "adjacency_gs: .incbin \"shaders/adjacency.gs.bin\"\n"
        "adjacency_gs_end:\n"
        "patch_tcs: .incbin \"shaders/patch.tcs.bin\"\n"
        "patch_tcs_end:\n"
        "patch_tes: .incbin \"shaders/patch.tes.bin\"\n"
        "patch_tes_end:\n"
        "patch86_tcs: .incbin \"shaders/patch86.tcs.bin\"\n"
        "patch86_tcs_end:\n"
        "patch86_tes: .incbin \"shaders/patch86.tes.bin\"\n"
        "patch86_tes_end:\n"
        "locations_ps: .incbin \"shaders/locations.ps.bin\"\n"
        "locations_ps_end:\n"
        "locations86_ps: .incbin \"shaders/locations86.ps.bin\"\n"
        "locations86_ps_end:\n"
        "primitive_ps: .incbin \"shaders/primitive.ps.bin\"\n"
        "primitive_ps_end:\n"
        "strips_gs: .incbin \"shaders/strips.gs.bin\"\n"
        "strips_gs_end:\n"
        "streams_gs: .incbin \"shaders/streams.gs.bin\"\n"
        "streams_gs_end:\n"
        "derivatives_ps: .incbin \"shaders/derivatives.ps.bin\"\n"
        "derivatives_ps_end:\n"
        "votes_ps: .incbin \"shaders/votes.ps.bin\"\n"
        "votes_ps_end:\n"
        "points_gs: .incbin \"shaders/points.gs.bin\"\n"
        "points_gs_end:\n"
        "samples_ps: .incbin \"shaders/samples.ps.bin\"\n"
        "samples_ps_end:\n"
        "votes_vs: .incbin \"shaders/votes.vs.bin\"\n"
        "votes_vs_end:\n"
        "sprite_ps: .incbin \"shaders/sprite.ps.bin\"\n"
        "sprite_ps_end:\n"
        "layer_ps: .incbin \"shaders/layer.ps.bin\"\n"
        "layer_ps_end:\n"
        "viewport_ps: .incbin \"shaders/viewport.ps.bin\"\n"
        "viewport_ps_end:\n"
        "clip_vs: .incbin \"shaders/clip.vs.bin\"\n"
        "clip_vs_end:\n"
        "mask_ps: .incbin \"shaders/mask.ps.bin\"\n"
        "mask_ps_end:\n"
        "buffer_ps: .incbin \"shaders/buffer.ps.bin\"\n"
        "buffer_ps_end:\n"
        "covmask_ps: .incbin \"shaders/covmask.ps.bin\"\n"
        "covmask_ps_end:\n"
        "buffer_runtime_ps: .incbin \"shaders/buffer_runtime.ps.bin\"\n"
        "buffer_runtime_ps_end:\n"
        ".previous\n");
#define HIDDEN __attribute__((visibility("hidden")))
HIDDEN extern const uint8_t buffer_ps[], buffer_ps_end[], covmask_ps[], covmask_ps_end[], buffer_runtime_ps[],
    buffer_runtime_ps_end[], pass_vs[], pass_vs_end[], offset_vs[], offset_vs_end[], perspective_ps[],
    perspective_ps_end[], flat_ps[], flat_ps_end[], texture_ps[], texture_ps_end[], texture_lod_ps[],
    texture_lod_ps_end[], fetch_ps[], fetch_ps_end[], two_ps[], two_ps_end[], viewport_vs[], viewport_vs_end[], rg_ps[], rg_ps_end[], shadow_ps[], shadow_ps_end[], shadow_scalar_ps[], shadow_scalar_ps_end[], gradient_ps[],
    gradient_ps_end[], gather_ps[], gather_ps_end[], gather_offset_ps[],
    gather_offset_ps_end[], count_ps[], count_ps_end[], volume_ps[], volume_ps_end[], layer_vs[], layer_vs_end[], sample_ps[],
    sample_ps_end[], gather_ptp_ps[], gather_ptp_ps_end[], gather_ptp_compare_ps[], gather_ptp_compare_ps_end[],
    gather_layer_ps[], gather_layer_ps_end[], texture_offset_ps[], texture_offset_ps_end[], fetch_offset_ps[],
    fetch_offset_ps_end[], fetch_offset_scalar_ps[], fetch_offset_scalar_ps_end[], texture_half_ps[],
    texture_half_ps_end[], gather_half_ps[], gather_half_ps_end[], bindless_ps[], bindless_ps_end[], bindless_pair_ps[],
    bindless_pair_ps_end[], txq_ps[], txq_ps_end[], txq_bindless_ps[], txq_bindless_ps_end[], lod_query_ps[],
    lod_query_ps_end[], txq_level0_ps[], txq_level0_ps_end[], bindless_runtime_ps[], bindless_runtime_ps_end[],
    pass86_vs[], pass86_vs_end[], perspective86_ps[], perspective86_ps_end[], kill_ps[], kill_ps_end[], kill86_ps[],
    kill86_ps_end[], indexed86_vs[], indexed86_vs_end[], lod_query86_ps[], lod_query86_ps_end[], samples86_ps[],
    samples86_ps_end[], offset86_vs[], offset86_vs_end[],
    surface_ps[], surface_ps_end[], copies_gs[], copies_gs_end[], copies86_gs[], copies86_gs_end[], indexed_vs[],
    indexed_vs_end[], indexed_ps[], indexed_ps_end[], adjacency_gs[],
    adjacency_gs_end[], patch_tcs[], patch_tcs_end[], patch_tes[], patch_tes_end[], patch86_tcs[],
    patch86_tcs_end[], patch86_tes[], patch86_tes_end[], locations_ps[],
    locations_ps_end[], locations86_ps[], locations86_ps_end[], primitive_ps[], primitive_ps_end[], strips_gs[], strips_gs_end[], streams_gs[], streams_gs_end[], derivatives_ps[], derivatives_ps_end[], votes_ps[], votes_ps_end[], points_gs[], points_gs_end[], samples_ps[], samples_ps_end[], votes_vs[], votes_vs_end[], sprite_ps[], sprite_ps_end[], layer_ps[], layer_ps_end[], viewport_ps[], viewport_ps_end[], clip_vs[], clip_vs_end[], mask_ps[], mask_ps_end[];

/* 3D class methods (NVB197_...), and Ampere B's (NVC797_...) where they differ. */
#define SET_REPORT_SEMAPHORE_PAYLOAD_LOWER 0x0158u /* C797; then _UPPER, _ADDRESS_LOWER, _UPPER, REPORT_SEMAPHORE_EXECUTE */
#define SET_INDEX_BUFFER_SIZE_A 0x0238u /* C797 */
#define SET_VERTEX_STREAM_SIZE_A 0x0600u /* C797 */
#define SET_PIPELINE_PROGRAM_ADDRESS_A 0x2014u /* C797 */
#define SET_DRAW_CONTROL_A 0x0260u /* C797: TOPOLOGY 3:0, INSTANCE_ID 6:5 (FIRST 0), INSTANCE_ITERATE_ENABLE 9 */
#define INSTANCE_ITERATE_ENABLE (1u << 9)
#define DRAW_INDEX_BUFFER_BEGIN_END_A 0x0268u /* C797: the first index; _B, the count, launches */
#define DRAW_VERTEX_ARRAY_BEGIN_END_A 0x0270u /* C797: the first vertex; _B, the count, launches */
#define SET_OBJECT 0x0000u
#define SET_RASTER_ENABLE 0x037Cu
#define SET_COLOR_TARGET_A 0x0800u
#define SET_VIEWPORT_SCALE_X 0x0A00u
#define SET_VIEWPORT_CLIP_HORIZONTAL 0x0C00u
#define SET_VERTEX_ARRAY_START 0x0D74u
#define DRAW_VERTEX_ARRAY 0x0D78u
#define SET_VIEWPORT_Z_CLIP 0x0D7Cu
#define SET_SURFACE_CLIP_HORIZONTAL 0x0FF4u
#define SET_VERTEX_ATTRIBUTE_A 0x1160u
#define SET_CT_SELECT 0x121Cu
#define SET_BLEND_COLOR_OP 0x1340u
#define SET_BLEND 0x1360u
#define SET_PS_SATURATE 0x13A8u
#define SET_DA_PRIMITIVE_RESTART 0x1644u
#define SET_DA_PRIMITIVE_RESTART_INDEX 0x1648u
#define SET_DA_PRIMITIVE_RESTART_VERTEX_ARRAY 0x0DE8u
#define TRIANGLE_STRIP 5u
#define POINTS 0u
#define LINES 1u
#define LINE_LOOP 2u
#define SET_LINE_WIDTH_FLOAT 0x13B0u
#define SET_ALIASED_LINE_WIDTH_FLOAT 0x13B4u
#define SET_ALIASED_LINE_WIDTH_ENABLE 0x020Cu
#define SET_POINT_SIZE 0x1518u
#define SET_POINT_SPRITE 0x1520u
#define SET_POINT_SPRITE_SELECT 0x1604u /* ORIGIN 2:2, BOTTOM 0 or TOP 1 */
#define SET_VIEWPORT_CLIP_CONTROL 0x193Cu
#define SET_WINDOW_ORIGIN 0x13ACu
#define WINDOW_ORIGIN_FLIP_Y 0x10u
#define OGL_SET_CULL 0x1918u
#define OGL_SET_FRONT_FACE 0x191Cu
#define OGL_SET_CULL_FACE 0x1920u
#define OGL_CW 0x900u
#define OGL_CCW 0x901u
#define OGL_BACK 0x405u
/* SET_VIEWPORT_CLIP_CONTROL as NVN sets it with depth clamp off (GEOMETRY_CLIP FRUSTUM_XYZ_CLIP, PIXEL_MIN_Z and
 * PIXEL_MAX_Z CLAMP, z range 0..1, guard bands), and the same with GEOMETRY_CLIP FRUSTUM_XY_CLIP: z unclipped. */
#define CLIP_CONTROL_Z_CLIPPED 0x181Du
#define CLIP_CONTROL_Z_CLAMPED 0x101Du
#define SET_LOGIC_OP 0x19C4u
#define SET_LOGIC_OP_FUNC 0x19C8u
#define OGL_XOR 0x1506u
#define OGL_COPY_INVERTED 0x150Cu
#define SET_PROVOKING_VERTEX 0x1684u
#define SET_VERTEX_STREAM_INSTANCE_A 0x1880u
#define SET_PROGRAM_REGION_A 0x1608u
#define END 0x1614u
#define BEGIN 0x1618u
#define SET_INDEX_BUFFER_A 0x17C8u
#define DRAW_INDEX_BUFFER 0x17E0u
#define SET_VIEWPORT_SCALE_OFFSET 0x192Cu
#define SET_CT_WRITE 0x1A00u
#define SET_VERTEX_STREAM_A_FORMAT 0x1C00u
#define SET_VERTEX_STREAM_LIMIT_A_A 0x1F00u
#define SET_PIPELINE_SHADER 0x2000u
#define SET_TEX_SAMPLER_POOL_A 0x155Cu
#define SET_TEX_HEADER_POOL_A 0x1574u
#define SET_CONSTANT_BUFFER_SELECTOR_A 0x2380u
#define LOAD_CONSTANT_BUFFER_OFFSET 0x238Cu
#define LOAD_CONSTANT_BUFFER 0x2390u
#define BIND_GROUP_CONSTANT_BUFFER 0x2410u
#define SET_BINDLESS_TEXTURE 0x2608u
#define INVALIDATE_TEXTURE_DATA_CACHE 0x1338u
#define SET_ZT_A 0x0FE0u
#define SET_ZT_SIZE_A 0x1228u
#define SET_ZT_SELECT 0x1538u
#define SET_Z_CLEAR_VALUE 0x0D90u
#define SET_STENCIL_CLEAR_VALUE 0x0DA0u
#define CLEAR_SURFACE 0x19D0u
#define SET_DEPTH_TEST 0x12CCu
#define SET_DEPTH_WRITE 0x12E8u
#define SET_API_MANDATED_EARLY_Z 0x0210u
#define SET_POST_Z_PS_IMASK 0x0F1Cu
#define SET_DEPTH_FUNC 0x130Cu
#define SET_ALPHA_TEST 0x12ECu
#define SET_ALPHA_REF 0x1310u
#define SET_ALPHA_FUNC 0x1314u
#define SET_POLY_OFFSET_LINE 0x0DC4u
#define SET_POLY_OFFSET_FILL 0x0DC8u
#define SET_SLOPE_SCALE_DEPTH_BIAS 0x156Cu
#define SET_DEPTH_BIAS 0x15BCu
#define SET_DEPTH_BIAS_CLAMP 0x187Cu
#define SET_DEPTH_BOUNDS_MIN 0x0F9Cu
#define SET_DEPTH_BOUNDS_TEST 0x19BCu
#define SET_STENCIL_TEST 0x1380u
#define SET_STENCIL_OP_FAIL 0x1384u
#define SET_ZPASS_PIXEL_COUNT 0x1514u
#define SET_STATISTICS_COUNTER 0x0D68u
#define CLEAR_REPORT_VALUE 0x1530u
#define SET_REPORT_SEMAPHORE_A 0x1B00u
/* SET_REPORT_SEMAPHORE_D: REPORT_ONLY, four words, of REPORT 27:23. */
#define REPORT_ONLY 2u
#define REPORT_DA_VERTICES_GENERATED 0x01u
#define REPORT_DA_PRIMITIVES_GENERATED 0x03u
#define REPORT_ZPASS_PIXEL_CNT64 0x15u
/* The shader and clipper counters: each one's SET_STATISTICS_COUNTER enable bit, REPORT and CLEAR_REPORT_VALUE
 * TYPE (clb197.h). What they count is Vulkan's pipeline statistics' definition (NVK reads those from them). */
#define VS_INVOCATIONS 2u, 0x05u, 0x15u
#define GS_INVOCATIONS 3u, 0x07u, 0x1Au
#define GS_PRIMITIVES_GENERATED 4u, 0x09u, 0x1Bu
#define CLIPPER_INVOCATIONS 7u, 0x0Fu, 0x1Cu
#define CLIPPER_PRIMITIVES_GENERATED 8u, 0x11u, 0x1Du
#define PS_INVOCATIONS 9u, 0x13u, 0x1Eu
#define TI_INVOCATIONS 11u, 0x1Bu, 0x16u
#define TS_INVOCATIONS 12u, 0x1Du, 0x17u
/* The primitives the last stage before the rasteriser hands on (VK_EXT_primitives_generated_query's). */
#define VTG_PRIMITIVES_OUT 10u, 0x12u, 0x1Fu
/* Values. */
#define A8B8G8R8 0xD5u
#define X8B8G8R8 0xF9u
#define A8BL8GL8RL8 0xD6u
#define X8R8G8B8 0xE6u
#define Z8R8G8B8 0xFDu
#define A8 0xF7u
#define B8G8R8A8 0x47u
#define R32 0xFFu
#define OGL_ZERO 0x4000u
#define O8R8G8B8 0xFEu
#define SET_COLOR_CLEAR_VALUE 0x0D80u
#define OGL_DST_ALPHA 0x4304u
#define OGL_SRC1_COLOR 0xC900u
#define OGL_ONE_MINUS_SRC1_COLOR 0xC901u
#define OGL_ONE_MINUS_DST_ALPHA 0x4305u
#define PITCH (1u << 12)
#define TRIANGLES 4u
#define TRIANGLES_ADJACENCY 12u
#define PATCHES 14u
#define SET_TESSELLATION_PARAMETERS 0x0320u
#define SET_PATCH 0x0DCCu
#define INSTANCE_SUBSEQUENT (1u << 26)
#define FLOAT_R32_G32_B32_A32 (1u << 21 | 7u << 27)
#define FLOAT_R32_G32 (4u << 21 | 7u << 27)
#define UINT_R32 (0x12u << 21 | 4u << 27)
#define SET_SCISSOR_ENABLE 0x0E00u
#define SET_SINGLE_CT_WRITE_CONTROL 0x0F90u
#define QUADS 7u
#define QUAD_STRIP 8u
#define POLYGON 9u
#define SET_RENDER_ENABLE_A 0x1550u
#define SET_RENDER_ENABLE_C 0x1558u
#define RENDER_TRUE 1u
#define RENDER_IF_EQUAL 3u
#define RENDER_IF_NOT_EQUAL 4u
#define CONDITION 0x13F00u /* two 64-bit values, 16 bytes apart, for conditional rendering */
#define SECOND_TARGET 0x22000u /* another 64 x 32 texels of 4 bytes */
#define OGL_FUNC_ADD 0x8006u
#define OGL_ONE 0x4001u
#define RF32_GF32_BF32_AF32 0xC0u
#define RU32_GU32 0xCDu
#define Z24S8 0x14u
#define OGL_LESS 0x201u
#define OGL_EQUAL 0x202u
#define OGL_GREATER 0x204u
#define OGL_ALWAYS 0x207u
#define OGL_KEEP 0x1E00u
#define OGL_REPLACE 0x1E01u

/* Where things are in the channel's memory. */
#define REGION 0x10000u /* the program region: a program every 0x200 bytes */
#define PASS_VS 0x000u
#define OFFSET_VS 0x200u
#define PERSPECTIVE_PS 0x400u
#define FLAT_PS 0x600u
#define TEXTURE_PS 0x800u
#define TEXTURE_LOD_PS 0xA00u
#define FETCH_PS 0xC00u
#define TWO_PS 0xE00u
#define VIEWPORT_VS 0x1000u
#define RG_PS 0x1200u
#define SHADOW_PS 0x1400u
#define SHADOW_SCALAR_PS 0x1600u
#define GRADIENT_PS 0x1800u
#define GATHER_PS 0x1A00u
#define GATHER_OFFSET_PS 0x1C00u
#define COUNT_PS 0x1E00u
#define VOLUME_PS 0x4000u /* past the vertices and the words after them */
#define LAYER_VS 0x4200u
#define SAMPLE_PS 0x4400u
#define GATHER_PTP_PS 0x4600u
#define GATHER_PTP_COMPARE_PS 0x4800u
#define GATHER_LAYER_PS 0x4A00u
#define TEXTURE_OFFSET_PS 0x4C00u
#define FETCH_OFFSET_PS 0x4E00u
#define FETCH_OFFSET_SCALAR_PS 0x5000u
#define TEXTURE_HALF_PS 0x5200u
#define GATHER_HALF_PS 0x5400u
#define BINDLESS_PS 0x5600u
#define BINDLESS_PAIR_PS 0x5800u
#define TXQ_PS 0x5A00u
#define TXQ_BINDLESS_PS 0x5C00u
#define LOD_QUERY_PS 0x5E00u
#define TXQ_LEVEL0_PS 0x6000u
#define PASS86_VS 0x6200u /* SM86 twins of pass.vs and perspective.ps for Ampere B, at their own addresses */
#define PERSPECTIVE86_PS 0x6400u
#define BINDLESS_RUNTIME_PS 0x6600u
#define OFFSET86_VS 0x6800u
#define SURFACE_PS 0x6A00u
#define COPIES_GS 0x6C00u
#define COPIES86_GS 0x6E00u /* 0x400 bytes */
#define INDEXED_VS 0x7200u
#define INDEXED_PS 0x7400u
#define ADJACENCY_GS 0x7600u
#define PATCH_TCS 0x7800u
#define PATCH_TES 0x7A00u
#define PATCH86_TCS 0x7C00u /* 0x200 bytes */
#define PATCH86_TES 0x7E00u /* 0x400 bytes */
#define LOCATIONS_PS 0x8200u
#define LOCATIONS86_PS 0x8400u
#define PRIMITIVE_PS 0x8600u
#define STRIPS_GS 0x8800u /* 0x400 bytes */
#define DERIVATIVES_PS 0x8C00u
#define VOTES_PS 0x8E00u
#define POINTS_GS 0x9000u
#define SAMPLES_PS 0x9200u
#define VOTES_VS 0x9400u
#define SPRITE_PS 0x9600u
#define LAYER_PS 0x9800u
#define VIEWPORT_PS 0x9A00u
#define STREAMS_GS 0x9C00u /* 0x400 bytes */
#define KILL_PS 0xA000u
#define KILL86_PS 0xA200u
#define INDEXED86_VS 0xA400u /* 0x400 bytes */
#define LOD_QUERY86_PS 0xA800u
#define SAMPLES86_PS 0xAA00u
#define CLIP_VS 0xAC00u
#define MASK_PS 0xAE00u
#define BUFFER_PS 0xB000u
#define COVMASK_PS 0xB200u
#define BUFFER_RUNTIME_PS 0xB400u
#define COUNTER 0x13F40u /* a word the count program adds to */
#define VERTICES 0x12000u
#define INSTANCES 0x12400u
#define INDICES 0x12800u
#define TICS 0x13000u /* the texture header pool */
#define TSCS 0x13400u /* the sampler pool */
#define HANDLES 0x13800u /* the pixel stage's constant buffer 0: texture handles */
#define TARGET 0x20000u /* 64 x 32 texels of 4 bytes, 256 bytes a row */
#define FLOAT_TARGET 0x24000u /* 64 x 32 texels of four floats, 1024 bytes a row */
#define TEXELS 0x30000u /* textures, 0x1000 bytes each */
#define SURFACE 0x38000u /* 64 x 32 texels of 4 bytes, pitch: a pixel program's surface */
#define BLOCKS 0x3A000u /* 16 x 8 BC1 blocks, pitch, 128 bytes a row */
#define ZETA 0x2C000u /* 64 x 32 Z24S8 texels, block-linear, blocks two GOBs tall */
#define REPORTS 0x13C00u /* counter reports, 16 bytes each */
#define BUFFER_TEXELS 0xC0000u /* a 1D buffer texture of R8 texels */
#define WIDTH 64
#define HEIGHT 32

static uint32_t words[256];
static uint32_t n;
static GpuChannel gpu;
/* Whether the channel's 3D class is Ampere B (C797): programs at their own addresses, buffers bounded by size. */
static int ampere;

/* Methods of the engine bound to `subchannel`. */
static void method_on(uint32_t subchannel, uint32_t offset, uint32_t count, const uint32_t *values) {
    words[n++] = PB_INC(subchannel, offset, count);
    for (uint32_t i = 0; i < count; i++) words[n++] = values[i];
}

static void method(uint32_t offset, uint32_t count, const uint32_t *values) { method_on(0, offset, count, values); }

static void set(uint32_t offset, uint32_t value) { method(offset, 1, &value); }

static void set_address(uint32_t offset, uint32_t memory_offset) {
    uint64_t address = gpu.gpu_address + memory_offset;
    uint32_t values[2] = {(uint32_t)(address >> 32), (uint32_t)address};
    method(offset, 2, values);
}

static void run(const char *what) {
    expect(what, gpu_run(&gpu, words, n), 0);
    n = 0;
}

/* n / 2^shift as IEEE single-precision bits (exact: |n| < 2^24; the programs have no floating-point registers). */
static uint32_t float_bits(int32_t value, int shift) {
    if (value == 0) return 0;
    uint32_t sign = value < 0 ? 0x80000000u : 0;
    uint32_t magnitude = value < 0 ? (uint32_t)-value : (uint32_t)value;
    int top = 31 - __builtin_clz(magnitude);
    uint32_t mantissa = top > 23 ? magnitude >> (top - 23) : magnitude << (23 - top);
    return sign | (uint32_t)(127 + top - shift) << 23 | (mantissa & 0x7FFFFFu);
}

#define F_0 0x00000000u
#define F_0_2 0x3E4CCCCDu
#define F_0_4 0x3ECCCCCDu
#define F_0_6 0x3F19999Au
#define F_0_8 0x3F4CCCCDu

/* A vertex: window position in 1/16 pixel (x, y), colour. Viewport: scale (32, 16), offset (32, 16), so
 * NDC x = (x - 512) / 512 and y = (y - 256) / 256, exactly. */
typedef struct {
    int32_t x, y;
    uint32_t colour[4];
} Vertex;

/* The vertices' z (normalised device coordinates): 0.5 unless a depth test case says otherwise. */
static uint32_t vertex_z = 0x3F000000u;

static void put_vertices(const Vertex *vertices, uint32_t count) {
    uint32_t *out = (uint32_t *)(gpu.memory + VERTICES);
    for (uint32_t i = 0; i < count; i++) {
        out[8 * i + 0] = float_bits(vertices[i].x - 512, 9);
        out[8 * i + 1] = float_bits(vertices[i].y - 256, 8);
        out[8 * i + 2] = vertex_z;
        out[8 * i + 3] = F_1;
        for (int c = 0; c < 4; c++) out[8 * i + 4 + c] = vertices[i].colour[c];
    }
}

static int64_t edge(const Vertex *a, const Vertex *b, int64_t px, int64_t py) {
    return (int64_t)(b->x - a->x) * (py - a->y) - (int64_t)(b->y - a->y) * (px - a->x);
}

/* Whether pixel (x, y)'s centre is inside triangle t; a centre on an edge fails the test's premise. */
static int inside(const Vertex *t, uint32_t x, uint32_t y) {
    int64_t px = 16 * (int64_t)x + 8, py = 16 * (int64_t)y + 8;
    int64_t e0 = edge(&t[0], &t[1], px, py), e1 = edge(&t[1], &t[2], px, py), e2 = edge(&t[2], &t[0], px, py);
    check(e0 != 0 && e1 != 0 && e2 != 0, "no pixel centre on an edge");
    return (e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0);
}

static void fill_target(const uint8_t background[4]) {
    for (uint32_t i = 0; i < WIDTH * HEIGHT; i++) memcpy(gpu.memory + TARGET + 4 * i, background, 4);
}

/* Counts the pixels that differ from `drawn` where `covered` says and from `background` elsewhere. */
static uint32_t wrong_pixels(int (*covered)(uint32_t, uint32_t), const uint8_t drawn[4], const uint8_t background[4],
                             uint32_t *count) {
    uint32_t wrong = 0;
    *count = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            int in = covered(x, y);
            *count += (uint32_t)in;
            wrong += memcmp(gpu.memory + TARGET + 256 * y + 4 * x, in ? drawn : background, 4) != 0;
        }
    return wrong;
}

/* Prints a case's heading: "-- ", `prefix` and `what`. */
static void heading(const char *prefix, const char *what) {
    print("-- ");
    print(prefix);
    print(what);
    print("\n");
}

static void report(const char *what, uint32_t wrong, uint32_t count) {
    check(wrong == 0 && count > 50, what);
    print("   pixels covered ");
    print_u64(count);
    print(", wrong ");
    print_u64(wrong);
    print("\n");
}

static const Vertex triangle[3] = {
    {81, 50, {F_0_2, F_0_6, F_0_8, F_1}},
    {931, 145, {F_0_2, F_0_6, F_0_8, F_1}},
    {324, 473, {F_0_2, F_0_6, F_0_8, F_1}},
};
static int in_triangle(uint32_t x, uint32_t y) { return inside(triangle, x, y); }
/* The colour the perspective program draws the triangle in, and the background the tests fill targets with. */
static const uint8_t triangle_colour[4] = {51, 153, 204, 255}, target_background[4] = {0x11, 0x22, 0x33, 0x44};

/* The rectangle x 165..700, y 73..420 (1/16 pixel) as two indexed triangles, and its colour. */
static const Vertex rectangle[4] = {
    {165, 73, {F_0_6, F_0_8, F_0_2, F_1}},
    {700, 73, {F_0_6, F_0_8, F_0_2, F_1}},
    {165, 420, {F_0_6, F_0_8, F_0_2, F_1}},
    {700, 420, {F_0_6, F_0_8, F_0_2, F_1}},
};
static const uint16_t rectangle_indices[6] = {0, 1, 2, 2, 1, 3};
static const uint8_t rectangle_colour[4] = {153, 204, 51, 255};
/* Makes rectangle_indices the index buffer (defined below). */
static void rectangle_index_buffer(void);
static int in_rectangle(uint32_t x, uint32_t y) {
    uint32_t cx = 16 * x + 8, cy = 16 * y + 8;
    return cx > 165 && cx < 700 && cy > 73 && cy < 420;
}

/* Rectangles x 41..441 and 601..1001, y 73..420 (1/16 pixel), each drawn as a strip of two triangles. */
static int in_two_rectangles(uint32_t x, uint32_t y) {
    uint32_t cx = 16 * x + 8, cy = 16 * y + 8;
    return ((cx > 41 && cx < 441) || (cx > 601 && cx < 1001)) && cy > 73 && cy < 420;
}
/* Three points (1/16 pixel): at the centres of pixels (3, 4), (30, 20), (60, 9), then at the corners (4, 4),
 * (31, 20), (60, 28); each covers the pixels whose centres lie within `point_size` / 2 of it on both axes. */
static const int32_t point_x[2][3] = {{56, 488, 968}, {64, 496, 960}}, point_y[2][3] = {{72, 328, 152}, {64, 320, 448}};
static int point_size, point_corner;
static int64_t magnitude(int64_t v) { return v < 0 ? -v : v; }
static int in_points(uint32_t x, uint32_t y) {
    int64_t cx = 16 * (int64_t)x + 8, cy = 16 * (int64_t)y + 8, half = 8 * point_size;
    for (int i = 0; i < 3; i++) {
        int64_t dx = cx - point_x[point_corner][i], dy = cy - point_y[point_corner][i];
        if (dx > -half && dx < half && dy > -half && dy < half) return 1;
    }
    return 0;
}
/* A smaller triangle drawn twice: instance 1 moved by (16, 4) pixels (NDC 0.5, 0.25). */
static const Vertex small[3] = {
    {33, 41, {F_0_8, F_0_2, F_0_6, F_1}},
    {437, 90, {F_0_8, F_0_2, F_0_6, F_1}},
    {150, 389, {F_0_8, F_0_2, F_0_6, F_1}},
};
static int in_small(uint32_t x, uint32_t y) { return inside(small, x, y); }
static int in_instances(uint32_t x, uint32_t y) {
    Vertex moved[3];
    for (int i = 0; i < 3; i++) moved[i] = (Vertex){small[i].x + 256, small[i].y + 64, {0}};
    return inside(small, x, y) || inside(moved, x, y);
}

static void copy_program(uint32_t at, const uint8_t *start, const uint8_t *end) {
    memcpy(gpu.memory + REGION + at, start, (size_t)(end - start));
}

/* Pipeline slots 1 (vertex B) and 5 (pixel) run the programs at `vertex` and `pixel` in the program region: an
 * offset into it (Maxwell), or the address (Ampere). */
static void use_programs(uint32_t vertex, uint32_t pixel) {
    uint32_t vertex_stage[2] = {1 | 1u << 4, vertex}, pixel_stage[2] = {1 | 5u << 4, pixel};
    method(SET_PIPELINE_SHADER + 64 * 1, ampere ? 1 : 2, vertex_stage);
    method(SET_PIPELINE_SHADER + 64 * 5, ampere ? 1 : 2, pixel_stage);
    if (ampere) {
        set_address(SET_PIPELINE_PROGRAM_ADDRESS_A + 64 * 1, REGION + vertex);
        set_address(SET_PIPELINE_PROGRAM_ADDRESS_A + 64 * 5, REGION + pixel);
    }
}

/* A buffer's bounds after its address: its last byte's address (Maxwell's LIMIT methods at `limit`), or its size
 * (Ampere's SIZE methods at `size_method`). */
static void bounds(uint32_t limit, uint32_t size_method, uint32_t offset, uint32_t size) {
    if (ampere) {
        uint32_t values[2] = {0, size};
        method(size_method, 2, values);
    } else {
        set_address(limit, offset + size - 1);
    }
}

/* Stream `stream` at VERTICES + `offset`: `stride` bytes an element, `size` bytes in all. */
static void stream(uint32_t stream, uint32_t offset, uint32_t stride, uint32_t size) {
    set(SET_VERTEX_STREAM_A_FORMAT + 16 * stream, stride | 1u << 12);
    set_address(SET_VERTEX_STREAM_A_FORMAT + 4 + 16 * stream, offset);
    bounds(SET_VERTEX_STREAM_LIMIT_A_A + 8 * stream, SET_VERTEX_STREAM_SIZE_A + 8 * stream, offset, size);
}

/* The index buffer at `offset`, `size` bytes. */
static void index_buffer(uint32_t offset, uint32_t size) {
    set_address(SET_INDEX_BUFFER_A, offset);
    bounds(SET_INDEX_BUFFER_A + 8, SET_INDEX_BUFFER_SIZE_A, offset, size);
}

/* Generic 2 from stream 1, a new element every instance: instance 0's offset (0, 0), instance 1's (0.5, 0.25)
 * (16 and 4 pixels), which offset.vs and layer.vs add to the position. */
static void instance_offsets(void) {
    const uint32_t offsets[4] = {F_0, F_0, 0x3F000000u /* 0.5 */, 0x3E800000u /* 0.25 */};
    memcpy(gpu.memory + INSTANCES, offsets, sizeof offsets);
    set(SET_VERTEX_ATTRIBUTE_A + 8, 1 | FLOAT_R32_G32);
    stream(1, INSTANCES, 8, 16);
    set(SET_VERTEX_STREAM_A_FORMAT + 16 + 12, 1); /* FREQUENCY: a new element every instance */
    set(SET_VERTEX_STREAM_INSTANCE_A + 4, 1);
}

/* Vertices 0 to `count` - 1 drawn as `topology` (BEGIN's OP, with its instance flags). */
static void draw_primitives(uint32_t topology, uint32_t count) {
    set(BEGIN, topology);
    uint32_t range[2] = {0, count}; /* SET_VERTEX_ARRAY_START, DRAW_VERTEX_ARRAY */
    method(SET_VERTEX_ARRAY_START, 2, range);
    set(END, 0);
}

static void draw_arrays(uint32_t count, uint32_t instance_flags) { draw_primitives(TRIANGLES | instance_flags, count); }

/* Pipeline slot `slot` (2 tessellation control, 3 evaluation, 4 geometry; its stage type the same) runs the
 * program at `at` in the program region, or (`at` ~0) nothing. */
static void use_stage(uint32_t slot, uint32_t at) {
    uint32_t stage[2] = {(at != ~0u) | slot << 4, at};
    method(SET_PIPELINE_SHADER + 64 * slot, ampere || at == ~0u ? 1 : 2, stage);
    if (ampere && at != ~0u) set_address(SET_PIPELINE_PROGRAM_ADDRESS_A + 64 * slot, REGION + at);
}

static void report_counter(uint32_t counter, uint32_t slot) {
    set_address(SET_REPORT_SEMAPHORE_A, REPORTS + 16 * slot);
    set(SET_REPORT_SEMAPHORE_A + 12, REPORT_ONLY | counter << 23);
}

static uint64_t reported(uint32_t slot) {
    uint64_t value;
    memcpy(&value, gpu.memory + REPORTS + 16 * slot, 8);
    return value;
}

/* Statistics: counting a counter (its enable bit, report and clear type, as the defines above give them) starts
 * at zero, and its report lands in slot `slot`. */
static uint32_t counting;
static void count_statistic(uint32_t enable_bit, uint32_t report, uint32_t clear) {
    (void)report;
    counting |= 1u << enable_bit;
    set(SET_STATISTICS_COUNTER, counting);
    set(CLEAR_REPORT_VALUE, clear);
}
static void report_statistic(uint32_t slot, uint32_t enable_bit, uint32_t report, uint32_t clear) {
    (void)enable_bit, (void)clear;
    report_counter(report, slot);
}
static void stop_counting(void) {
    counting = 0;
    set(SET_STATISTICS_COUNTER, 0);
}

/* 2x2 quads (at even x and y) with a pixel that `covered` holds: a primitive's pixel program runs in no others. */
static uint64_t quads(int (*covered)(uint32_t, uint32_t)) {
    uint64_t count = 0;
    for (uint32_t y = 0; y < HEIGHT; y += 2)
        for (uint32_t x = 0; x < WIDTH; x += 2)
            count += covered(x, y) || covered(x + 1, y) || covered(x, y + 1) || covered(x + 1, y + 1);
    return count;
}

/* The small triangle as one patch of three control points, through tessellation programs in pipeline slots 2 and
 * 3 whose levels are 1.0, in a triangle domain: its pixels in control point 0's colour, nothing else. */
static void tessellated_patch(uint32_t vertex, uint32_t control, uint32_t evaluation, uint32_t pixel) {
    fill_target(target_background);
    put_vertices(small, 3);
    stream(0, VERTICES, 32, 32 * 3);
    use_programs(vertex, pixel);
    use_stage(2, control);
    use_stage(3, evaluation);
    set(SET_TESSELLATION_PARAMETERS, 1 | 2u << 8); /* TRIANGLE domain, INTEGER spacing, TRIANGLES_CW */
    set(SET_PATCH, 3);
    count_statistic(TI_INVOCATIONS);
    count_statistic(TS_INVOCATIONS);
    count_statistic(VTG_PRIMITIVES_OUT);
    draw_primitives(PATCHES, 3);
    report_statistic(0, TI_INVOCATIONS);
    report_statistic(1, TS_INVOCATIONS);
    report_statistic(2, VTG_PRIMITIVES_OUT);
    stop_counting();
    use_stage(2, ~0u);
    use_stage(3, ~0u);
    run("draw");
    const uint8_t patch_colour[4] = {204, 51, 153, 255};
    uint32_t count, wrong = wrong_pixels(in_small, patch_colour, target_background, &count);
    report("the pixels of the patch's triangle, in the colour its per-patch words hand on", wrong, count);
    /* Levels 1.0 in a triangle domain make one triangle of the domain's three corners. */
    check(reported(0) == 1 && reported(1) == 3 && reported(2) == 1,
          "TI_INVOCATIONS: one patch; TS_INVOCATIONS: its three vertices; VTG_PRIMITIVES_OUT: one triangle");
}

/* The small triangle drawn through a geometry program in pipeline slot 4, whose two invocations emit it as it is
 * and moved by (16, 4) pixels: both copies' pixels in the colour the pixel program interpolates, nothing else. */
static void geometry_copies(uint32_t vertex, uint32_t geometry, uint32_t pixel) {
    fill_target(target_background);
    put_vertices(small, 3);
    stream(0, VERTICES, 32, 32 * 3);
    use_programs(vertex, pixel);
    use_stage(4, geometry);
    count_statistic(GS_INVOCATIONS);
    count_statistic(GS_PRIMITIVES_GENERATED);
    count_statistic(CLIPPER_INVOCATIONS);
    count_statistic(VTG_PRIMITIVES_OUT);
    draw_arrays(3, 0);
    report_statistic(0, GS_INVOCATIONS);
    report_statistic(1, GS_PRIMITIVES_GENERATED);
    report_statistic(2, CLIPPER_INVOCATIONS);
    report_statistic(3, VTG_PRIMITIVES_OUT);
    stop_counting();
    use_stage(4, ~0u);
    run("draw");
    const uint8_t small_colour[4] = {204, 51, 153, 255};
    uint32_t count, wrong = wrong_pixels(in_instances, small_colour, target_background, &count);
    report("the triangle from invocation 0, its copy 16 pixels right and 4 down from invocation 1", wrong, count);
    check(reported(0) == 2 && reported(1) == 2 && reported(2) == 2 && reported(3) == 2,
          "GS_INVOCATIONS 2 (one triangle, two invocations), GS_PRIMITIVES_GENERATED, CLIPPER_INVOCATIONS and "
          "VTG_PRIMITIVES_OUT 2");
}

/* The triangle drawn by `program` onto the background, then its pixels checked against `expected` and the rest
 * against the background. */
static void drawn_triangle(const char *what, uint32_t program, const uint8_t expected[4]) {
    fill_target(target_background);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, program);
    draw_arrays(3, 0);
    run("draw");
    uint32_t count, wrong = wrong_pixels(in_triangle, expected, target_background, &count);
    report(what, wrong, count);
}

/* `drawn_triangle` with blending (ADD, `source`, `destination`). */
static void blended_triangle(const char *what, uint32_t program, uint32_t source, uint32_t destination,
                             const uint8_t expected[4]) {
    uint32_t equation[3] = {OGL_FUNC_ADD, source, destination};
    method(SET_BLEND_COLOR_OP, 3, equation);
    set(SET_BLEND, 1);
    drawn_triangle(what, program, expected);
    set(SET_BLEND, 0);
}

/* Two aliased lines right across the target: one along y = 10.25 pixels, one along x = 30.25. A line `width`
 * pixels wide covers that many rows of each column (columns of each row) centred on the row (column) the line
 * crosses, by OpenGL's rule for wide aliased lines, which also rounds the width to the nearest integer. */
static uint32_t line_width;
static int in_lines(uint32_t x, uint32_t y) {
    uint32_t half = line_width / 2;
    return (y + half >= 10 && y <= 10 + half) || (x + half >= 30 && x <= 30 + half);
}

static int in_outline(uint32_t x, uint32_t y) {
    return x >= 10 && x <= 40 && y >= 5 && y <= 20 && (x == 10 || x == 40 || y == 5 || y == 20);
}

#define SET_LINE_STIPPLE 0x166Cu
#define SET_LINE_STIPPLE_PARAMETERS 0x1680u /* FACTOR 7:0 (the factor less one), PATTERN 23:8 */

/* A line from (2.3125, 10.375) to (61.3125, 10.375): by the diamond-exit rule its pixels are x 2 to 60 of row
 * 10, the s-th of them (s = x - 2) drawn under OpenGL's stipple when bit (s / factor) mod 16 of the pattern is
 * set. */
static uint32_t stipple_factor, stipple_pattern;
static int in_stippled_line(uint32_t x, uint32_t y) {
    return y == 10 && x >= 2 && x <= 60 && (stipple_pattern >> ((x - 2) / stipple_factor % 16) & 1);
}

static void lines(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44}, colour[4] = {153, 204, 51, 255};
    struct {
        const char *what;
        uint32_t separate, width, aliased_width, pixels;
    } cases[] = {
        {"SET_LINE_WIDTH_FLOAT 1: one pixel wide", 0, F_1, F_1, 1},
        {"SET_LINE_WIDTH_FLOAT 3, no separate aliased width: three pixels wide", 0, 0x40400000u, F_1, 3},
        {"SET_ALIASED_LINE_WIDTH_FLOAT 2.6 (SET_ALIASED_LINE_WIDTH_ENABLE), rounded: three pixels wide", 1, F_1,
         0x40266666u, 3},
    };
    const Vertex ends[4] = {
        {-160, 164, {F_0_6, F_0_8, F_0_2, F_1}},
        {1184, 164, {F_0_6, F_0_8, F_0_2, F_1}},
        {484, -160, {F_0_6, F_0_8, F_0_2, F_1}},
        {484, 672, {F_0_6, F_0_8, F_0_2, F_1}},
    };
    use_programs(PASS_VS, PERSPECTIVE_PS);
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("lines, ", cases[k].what);
        fill_target(background);
        put_vertices(ends, 4);
        set(SET_ALIASED_LINE_WIDTH_ENABLE, cases[k].separate);
        set(SET_LINE_WIDTH_FLOAT, cases[k].width);
        set(SET_ALIASED_LINE_WIDTH_FLOAT, cases[k].aliased_width);
        draw_primitives(LINES, 4);
        run("draw");
        line_width = cases[k].pixels;
        uint32_t count, wrong = wrong_pixels(in_lines, colour, background, &count);
        report(cases[k].what, wrong, count);
    }
    set(SET_ALIASED_LINE_WIDTH_ENABLE, 0);
    set(SET_LINE_WIDTH_FLOAT, F_1);
    run("state back");

    const Vertex stippled[2] = {{37, 166, {F_0_6, F_0_8, F_0_2, F_1}}, {981, 166, {F_0_6, F_0_8, F_0_2, F_1}}};
    const uint32_t stipples[2][2] = {{2, 0x00FF}, {3, 0x0007}};
    for (int k = 0; k < 2; k++) {
        stipple_factor = stipples[k][0];
        stipple_pattern = stipples[k][1];
        print(k ? "-- a stippled line: factor 3, pattern 0x0007 (bit 0 first)\n"
                : "-- a stippled line: factor 2, pattern 0x00FF\n");
        fill_target(background);
        put_vertices(stippled, 2);
        set(SET_LINE_STIPPLE, 1);
        set(SET_LINE_STIPPLE_PARAMETERS, stipple_pattern << 8 | (stipple_factor - 1));
        draw_primitives(LINES, 2);
        set(SET_LINE_STIPPLE, 0);
        run("draw");
        uint32_t count, wrong = wrong_pixels(in_stippled_line, colour, background, &count);
        check(wrong == 0 && count >= 18, "the pattern's pixels of the line, and nothing else");
        print("   pixels covered ");
        print_u64(count);
        print(", wrong ");
        print_u64(wrong);
        print("\n");
    }

    /* A loop through (10.375, 5.1875), (40.375, 5.1875), (40.375, 20.1875), (10.375, 20.1875) pixels, each
     * corner inside its pixel's diamond: by the diamond-exit rule each side covers the pixels from the one it
     * starts in to the one before the one it ends in, so the closing side makes the outline of pixels 10-40 x
     * 5-20 whole. */
    print("-- a line loop: the outline of a rectangle, closed\n");
    fill_target(background);
    const Vertex loop[4] = {
        {166, 83, {F_0_6, F_0_8, F_0_2, F_1}},
        {646, 83, {F_0_6, F_0_8, F_0_2, F_1}},
        {646, 323, {F_0_6, F_0_8, F_0_2, F_1}},
        {166, 323, {F_0_6, F_0_8, F_0_2, F_1}},
    };
    put_vertices(loop, 4);
    draw_primitives(LINE_LOOP, 4);
    run("draw");
    uint32_t count, wrong = wrong_pixels(in_outline, colour, background, &count);
    report("the outline's pixels, and nothing else", wrong, count);
}

#define SET_FRONT_POLYGON_MODE 0x0DACu
#define SET_BACK_POLYGON_MODE 0x0DB0u
#define POLYGON_POINT 0x1B00u
#define POLYGON_LINE 0x1B01u
#define POLYGON_FILL 0x1B02u
#define OGL_FRONT 0x404u

/* The triangle (10.375, 5.1875), (40.375, 5.1875), (10.375, 20.1875) in the line polygon mode: its edges as lines
 * by the diamond-exit rule, each covering the pixels from the one it starts in to the one before the one it ends
 * in, so every corner's pixel is covered by the edge leaving it: row 5 from x 10 to 40, column 10 from y 5 to
 * 20, and one pixel a column for the x-major diagonal (x 11 to 39: 0 or 1 at x 39, where it runs in row 5). Where
 * the diagonal's pixel lies within a row of its ideal line is not checked; every other pixel keeps the
 * background. */
static const Vertex outlined[3] = {
    {166, 83, {F_0_6, F_0_8, F_0_2, F_1}},
    {646, 83, {F_0_6, F_0_8, F_0_2, F_1}},
    {166, 323, {F_0_6, F_0_8, F_0_2, F_1}},
};
static uint32_t wrong_outline(const uint8_t drawn[4], const uint8_t background[4], uint32_t *count) {
    uint32_t wrong = 0;
    *count = 0;
    for (uint32_t x = 0; x < WIDTH; x++) {
        /* The diagonal's ideal y at the column's centre, in 1/16 pixel: 83 + (646 - (16x + 8)) / 2. */
        int64_t ideal = 83 + (646 - (16 * (int64_t)x + 8)) / 2, row = ideal / 16;
        uint32_t on_diagonal = 0;
        for (uint32_t y = 0; y < HEIGHT; y++) {
            const uint8_t *texel = gpu.memory + TARGET + 256 * y + 4 * x;
            int edge = (y == 5 && x >= 10 && x <= 40) || (x == 10 && y >= 5 && y <= 20);
            int near_diagonal = x >= 11 && x <= 39 && !edge && (int64_t)y + 1 >= row && (int64_t)y <= row + 1;
            if (near_diagonal) {
                if (memcmp(texel, drawn, 4) == 0) on_diagonal++;
                else wrong += memcmp(texel, background, 4) != 0;
                continue;
            }
            *count += (uint32_t)edge;
            wrong += memcmp(texel, edge ? drawn : background, 4) != 0;
        }
        if (x >= 11 && x <= 39) {
            *count += on_diagonal;
            wrong += on_diagonal > 1 || (on_diagonal == 0 && x != 39);
        }
    }
    return wrong;
}

static int in_corners(uint32_t x, uint32_t y) {
    /* The pixels holding the triangle's corners (81, 50), (931, 145), (324, 473). */
    return (x == 5 && y == 3) || (x == 58 && y == 9) || (x == 20 && y == 29);
}

static int nothing(uint32_t x, uint32_t y) {
    (void)x;
    (void)y;
    return 0;
}

/* SET_FRONT_POLYGON_MODE and SET_BACK_POLYGON_MODE (OpenGL's POINT, LINE and FILL): a triangle's vertices drawn as
 * points of size 1 (each covers the pixel its position lies in), its edges as lines; with back faces culled,
 * the front faces' mode draws, with front faces culled the back faces'. */
static void polygon_modes(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    uint32_t count, wrong;
    use_programs(PASS_VS, PERSPECTIVE_PS);

    print("-- polygon mode POINT: the triangle's corners, each the pixel it lies in\n");
    fill_target(background);
    put_vertices(triangle, 3);
    set(SET_FRONT_POLYGON_MODE, POLYGON_POINT);
    set(SET_BACK_POLYGON_MODE, POLYGON_POINT);
    draw_arrays(3, 0);
    run("draw");
    wrong = wrong_pixels(in_corners, triangle_colour, background, &count);
    check(wrong == 0 && count == 3, "the three corners' pixels, and nothing else");
    print("   pixels covered 3, wrong ");
    print_u64(wrong);
    print("\n");

    print("-- polygon mode LINE: the triangle's edges by the diamond-exit rule\n");
    fill_target(background);
    put_vertices(outlined, 3);
    set(SET_FRONT_POLYGON_MODE, POLYGON_LINE);
    set(SET_BACK_POLYGON_MODE, POLYGON_LINE);
    draw_arrays(3, 0);
    run("draw");
    wrong = wrong_outline(rectangle_colour, background, &count);
    report("the edges' pixels, and nothing else", wrong, count);

    print("-- front faces POINT, back faces FILL: culling the back draws a front-facing triangle as points, "
          "culling the front draws a back-facing one filled\n");
    const Vertex reversed[3] = {triangle[0], triangle[2], triangle[1]};
    set(SET_FRONT_POLYGON_MODE, POLYGON_POINT);
    set(SET_BACK_POLYGON_MODE, POLYGON_FILL);
    set(OGL_SET_CULL, 1);
    int as_points[2] = {0, 0};
    for (int culled = 0; culled < 2; culled++)
        for (int winding = 0; winding < 2; winding++) {
            fill_target(background);
            put_vertices(winding ? reversed : triangle, 3);
            set(OGL_SET_CULL_FACE, culled ? OGL_FRONT : OGL_BACK);
            draw_arrays(3, 0);
            run("draw");
            if (culled == 0) {
                as_points[winding] = wrong_pixels(in_corners, triangle_colour, background, &count) == 0;
                check(as_points[winding] || wrong_pixels(nothing, triangle_colour, background, &count) == 0,
                      "a triangle with back faces culled is drawn as points or not at all");
            } else {
                /* The winding drawn as points is front-facing: culled now; the other is drawn filled. */
                wrong = wrong_pixels(as_points[winding] ? nothing : in_triangle, triangle_colour, background, &count);
                check(wrong == 0, "culling front faces draws the back-facing triangle filled, and nothing of the other");
            }
        }
    check(as_points[0] != as_points[1], "exactly one winding is front-facing");
    set(OGL_SET_CULL, 0);
    set(OGL_SET_CULL_FACE, OGL_BACK);
    set(SET_FRONT_POLYGON_MODE, POLYGON_FILL);
    set(SET_BACK_POLYGON_MODE, POLYGON_FILL);
    run("state back");
}

#define SET_POLYGON_STIPPLE 0x168Cu
#define SET_POLYGON_STIPPLE_PATTERN 0x1700u

/* OpenGL's polygon stipple: 32 rows of 4 bytes, the most significant bit of each byte its leftmost pixel, pixel
 * (x, y) taking bit x mod 32 of row y mod 32 (rows from the target's first). */
static uint8_t stipple_bytes[128];
static int in_stippled_rectangle(uint32_t x, uint32_t y) {
    return in_rectangle(x, y) && (stipple_bytes[4 * (y % 32) + x % 32 / 8] & (0x80u >> (x % 8)));
}

/* SET_POLYGON_STIPPLE with its 32 words the pattern's bytes in order (little-endian words, as nouveau writes
 * them): the rectangle keeps the pixels whose bits are set. */
static void polygon_stipple(void) {
    print("-- the polygon stipple: the rectangle's pixels whose pattern bits are set\n");
    uint32_t rows[32];
    for (uint32_t i = 0; i < 128; i++) stipple_bytes[i] = (uint8_t)(0xC3u ^ (i * 37u + (i >> 2) * 11u));
    for (uint32_t r = 0; r < 32; r++)
        rows[r] = (uint32_t)stipple_bytes[4 * r] | (uint32_t)stipple_bytes[4 * r + 1] << 8 |
                  (uint32_t)stipple_bytes[4 * r + 2] << 16 | (uint32_t)stipple_bytes[4 * r + 3] << 24;
    use_programs(PASS_VS, PERSPECTIVE_PS);
    fill_target(target_background);
    put_vertices(rectangle, 4);
    rectangle_index_buffer();
    method(SET_POLYGON_STIPPLE_PATTERN, 32, rows);
    set(SET_POLYGON_STIPPLE, 1);
    set(BEGIN, TRIANGLES);
    set(DRAW_INDEX_BUFFER, 6);
    set(END, 0);
    set(SET_POLYGON_STIPPLE, 0);
    run("draw");
    uint32_t count, wrong = wrong_pixels(in_stippled_rectangle, rectangle_colour, target_background, &count);
    report("the pattern's pixels of the rectangle, and nothing else", wrong, count);
}

#define SET_WINDOW_CLIP_HORIZONTAL 0x0D00u /* rectangle j's XMIN 15:0, XMAX 31:16 at + 8j; YMIN, YMAX at + 4 */
#define SET_WINDOW_CLIP_ENABLE 0x194Cu
#define SET_WINDOW_CLIP_TYPE 0x1950u /* INCLUSIVE 0, EXCLUSIVE 1, CLIPALL 2 */

/* Two window clip rectangles that overlap, x 8..23 by y 2..13 and x 20..39 by y 12..29 (their maxima exclusive,
 * as nouveau programs GL_EXT_window_rectangles), the other six empty (zeros). */
static int in_window_rects(uint32_t x, uint32_t y) {
    return (x >= 8 && x < 24 && y >= 2 && y < 14) || (x >= 20 && x < 40 && y >= 12 && y < 30);
}
static int in_rectangle_inside_rects(uint32_t x, uint32_t y) { return in_rectangle(x, y) && in_window_rects(x, y); }
static int in_rectangle_outside_rects(uint32_t x, uint32_t y) { return in_rectangle(x, y) && !in_window_rects(x, y); }

/* SET_WINDOW_CLIP_*: the rectangle keeps its pixels inside the window clip rectangles (INCLUSIVE), outside them
 * (EXCLUSIVE), or none (CLIPALL). */
static void window_clip(void) {
    const struct {
        const char *what;
        uint32_t type;
        int (*covered)(uint32_t, uint32_t);
    } cases[] = {
        {"INCLUSIVE: the rectangle's pixels inside either window clip rectangle", 0, in_rectangle_inside_rects},
        {"EXCLUSIVE: the rectangle's pixels outside both", 1, in_rectangle_outside_rects},
        {"CLIPALL: none of them", 2, nothing},
    };
    uint32_t rects[16] = {0};
    rects[0] = 8 | 24u << 16, rects[1] = 2 | 14u << 16, rects[2] = 20 | 40u << 16, rects[3] = 12 | 30u << 16;
    use_programs(PASS_VS, PERSPECTIVE_PS);
    put_vertices(rectangle, 4);
    rectangle_index_buffer();
    method(SET_WINDOW_CLIP_HORIZONTAL, 16, rects);
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("window clip rectangles, ", cases[k].what);
        fill_target(target_background);
        set(SET_WINDOW_CLIP_TYPE, cases[k].type);
        set(SET_WINDOW_CLIP_ENABLE, 1);
        set(BEGIN, TRIANGLES);
        set(DRAW_INDEX_BUFFER, 6);
        set(END, 0);
        set(SET_WINDOW_CLIP_ENABLE, 0);
        run("draw");
        uint32_t count, wrong = wrong_pixels(cases[k].covered, rectangle_colour, target_background, &count);
        if (cases[k].covered == nothing)
            check(wrong == 0, cases[k].what);
        else
            report(cases[k].what, wrong, count);
    }
}

#define SET_USER_CLIP_ENABLE 0x1510u /* PLANE0..7 in bits 0..7 */
#define SET_USER_CLIP_OP 0x1940u     /* plane i CULL in bit 4i, else CLIP */

static int in_triangle_right(uint32_t x, uint32_t y) { return in_triangle(x, y) && x >= 32; }
static int in_triangle_lower_right(uint32_t x, uint32_t y) { return in_triangle(x, y) && x >= 32 && y >= 16; }

/* User clip planes: clip.vs writes the position's x and y (NDC) as clip distances 0 and 1. Clipping by plane 0
 * keeps the pixels whose centres lie right of the viewport's centre (x >= 32), by both also below it (y >= 16);
 * as a cull plane (SET_USER_CLIP_OP CULL), plane 0 drops only a primitive whose every vertex lies left of it:
 * the triangle, across it, is drawn whole, the small one, left of it, not at all. */
static void user_clip_planes(void) {
    const struct {
        const char *what;
        uint32_t enable, op;
        const Vertex *vertices;
        int (*covered)(uint32_t, uint32_t);
    } cases[] = {
        {"clip plane 0 (x >= 0): the triangle's right part", 1, 0, triangle, in_triangle_right},
        {"clip planes 0 and 1: its lower right part", 3, 0, triangle, in_triangle_lower_right},
        {"cull plane 0: the triangle across it, whole", 1, 1, triangle, in_triangle},
        {"cull plane 0: the small triangle left of it, not at all", 1, 1, small, nothing},
    };
    copy_program(CLIP_VS, clip_vs, clip_vs_end);
    use_programs(CLIP_VS, PERSPECTIVE_PS);
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("user clip planes, ", cases[k].what);
        fill_target(target_background);
        put_vertices(cases[k].vertices, 3);
        set(SET_USER_CLIP_ENABLE, cases[k].enable);
        set(SET_USER_CLIP_OP, cases[k].op);
        draw_arrays(3, 0);
        set(SET_USER_CLIP_ENABLE, 0);
        set(SET_USER_CLIP_OP, 0);
        run("draw");
        uint32_t count, wrong = wrong_pixels(cases[k].covered, triangle_colour, target_background, &count);
        check(wrong == 0, cases[k].what);
        print("   pixels covered ");
        print_u64(count);
        print(", wrong ");
        print_u64(wrong);
        print("\n");
    }
}

static int everywhere(uint32_t x, uint32_t y) {
    (void)x;
    (void)y;
    return 1;
}

/* Makes colour target 0 (its other words in `target`) of `format`. */
static void set_target_format(uint32_t target[4], uint32_t format) {
    target[2] = format;
    method(SET_COLOR_TARGET_A + 8, 4, target);
}

/* Clears the whole target, filled with `background` first, with SET_COLOR_CLEAR_VALUE as it is, and reports
 * whether every texel then holds `expected`. */
static void clear_and_check(const char *what, const uint8_t background[4], const uint8_t expected[4]) {
    fill_target(background);
    set(CLEAR_SURFACE, 0x3C); /* R, G, B, A */
    run("clear");
    uint32_t count, wrong = wrong_pixels(everywhere, expected, background, &count);
    report(what, wrong, count);
}

/* `wrong_pixels` for a target of a byte a texel (rows still 256 bytes apart). */
static uint32_t wrong_bytes(int (*covered)(uint32_t, uint32_t), uint8_t drawn, uint8_t background, uint32_t *count) {
    uint32_t wrong = 0;
    *count = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            int in = covered(x, y);
            *count += (uint32_t)in;
            wrong += gpu.memory[TARGET + 256 * y + x] != (in ? drawn : background);
        }
    return wrong;
}

/* Targets without alpha: an X8B8G8R8 target (its top byte unused) blends as if destination alpha were 1.0, so
 * (DST_ALPHA, ONE_MINUS_DST_ALPHA) takes the source's colour whatever the unused byte holds; an X8R8G8B8 target
 * cleared takes B, G, R bytes. Nothing defines what lands in the unused byte (the class has Z and O formats for
 * zeros and ones); Tandem keeps it. The Z and O formats write their names' zeros and ones there: in the pixels a
 * triangle covers (the others keep theirs), and in every pixel a clear reaches. */
static void targets_without_alpha(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    uint32_t target[4] = {WIDTH * 4, HEIGHT, X8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    print("-- X8B8G8R8, blending (DST_ALPHA, ONE_MINUS_DST_ALPHA): destination alpha reads 1.0\n");
    const uint8_t drawn[4] = {51, 153, 204, 0x44};
    blended_triangle("covered pixels take the source's (51, 153, 204), the unused byte kept", PERSPECTIVE_PS,
                     OGL_DST_ALPHA, OGL_ONE_MINUS_DST_ALPHA, drawn);

    print("-- X8R8G8B8 cleared to (0.2, 0.6, 0.8, 0)\n");
    set_target_format(target, X8R8G8B8);
    uint32_t clear[4] = {F_0_2, F_0_6, F_0_8, F_0};
    method(SET_COLOR_CLEAR_VALUE, 4, clear);
    const uint8_t cleared[4] = {204, 153, 51, 0x44};
    clear_and_check("every texel holds bytes B, G, R (204, 153, 51), the unused byte kept", background, cleared);

    print("-- Z8R8G8B8, blending (DST_ALPHA, ONE_MINUS_DST_ALPHA): zeros in the unused byte of covered pixels\n");
    set_target_format(target, Z8R8G8B8);
    const uint8_t zeroed[4] = {204, 153, 51, 0x00};
    blended_triangle("covered pixels take B, G, R (204, 153, 51) and a zero byte, the others keep theirs",
                     PERSPECTIVE_PS, OGL_DST_ALPHA, OGL_ONE_MINUS_DST_ALPHA, zeroed);

    print("-- O8R8G8B8 cleared to (0.2, 0.6, 0.8, 0): ones in the unused byte\n");
    set_target_format(target, O8R8G8B8);
    const uint8_t ones[4] = {204, 153, 51, 0xFF};
    clear_and_check("every texel holds bytes B, G, R (204, 153, 51) and 0xFF", background, ones);
    set_target_format(target, A8B8G8R8);
    run("state back");
}

/* Formats that keep alpha where the host's formats do not: B8G8R8A8 (named from the most significant bits down: A
 * in the low byte, then R, G, B) takes the triangle's (0.2, 0.6, 0.8, 1.0) as bytes 255, 51, 153, 204 and a
 * clear to (0.2, 0.6, 0.8, 0.4) as 102, 51, 153, 204; A8 (alpha alone, a byte a texel) blends by the alpha
 * equation: ADD(ZERO, DST_ALPHA) leaves the stored alpha squared, 0x44 -> 68 * 68 / 255 = 18.13 -> 18 (it would
 * stay 68 if destination alpha read 1.0), and a clear of alpha 0.4 stores 102. */
static void targets_with_alpha_elsewhere(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    uint32_t target[4] = {WIDTH * 4, HEIGHT, B8G8R8A8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    print("-- B8G8R8A8: the triangle's (0.2, 0.6, 0.8, 1.0) as A, R, G, B bytes\n");
    const uint8_t drawn[4] = {255, 51, 153, 204};
    drawn_triangle("covered pixels hold bytes 255, 51, 153, 204, the others theirs", PERSPECTIVE_PS, drawn);

    print("-- B8G8R8A8 cleared to (0.2, 0.6, 0.8, 0.4)\n");
    uint32_t clear[4] = {F_0_2, F_0_6, F_0_8, F_0_4};
    method(SET_COLOR_CLEAR_VALUE, 4, clear);
    const uint8_t cleared[4] = {102, 51, 153, 204};
    clear_and_check("every texel holds bytes 102, 51, 153, 204", background, cleared);

    print("-- A8, blending ADD(ZERO, DST_ALPHA): the stored alpha squared where the triangle covers\n");
    set_target_format(target, A8);
    memset(gpu.memory + TARGET, 0x44, 256 * HEIGHT);
    uint32_t equation[3] = {OGL_FUNC_ADD, OGL_ZERO, OGL_DST_ALPHA};
    method(SET_BLEND_COLOR_OP, 3, equation);
    set(SET_BLEND, 1);
    draw_arrays(3, 0);
    set(SET_BLEND, 0);
    run("draw");
    uint32_t count, wrong = wrong_bytes(in_triangle, 18, 0x44, &count);
    report("covered texels hold 18, the others 0x44", wrong, count);

    print("-- A8 cleared to alpha 0.4\n");
    set(CLEAR_SURFACE, 0x3C);
    run("clear");
    wrong = wrong_bytes(everywhere, 102, 0x44, &count);
    report("every texel holds 102", wrong, count);
    set_target_format(target, A8B8G8R8);
    run("state back");
}

/* R32 holds 32 bits of no number kind: a pixel program's output word lands as it is, here the flat program's R,
 * the vertices' 0.2f (0x3E4CCCCD), with blending ADD(ONE, ONE) on, as integer targets do not blend; a clear
 * stores SET_COLOR_CLEAR_VALUE's first word as it is. */
static void raw_target(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44}, word[4] = {0xCD, 0xCC, 0x4C, 0x3E};
    uint32_t target[4] = {WIDTH * 4, HEIGHT, R32, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    print("-- R32, blending ADD(ONE, ONE): the flat program's first word as it is\n");
    blended_triangle("covered pixels hold 0x3E4CCCCD, the others theirs", FLAT_PS, OGL_ONE, OGL_ONE, word);

    print("-- R32 cleared to the words (0x3E4CCCCD, ...)\n");
    uint32_t clear[4] = {F_0_2, F_0_6, F_0_8, F_0_4};
    method(SET_COLOR_CLEAR_VALUE, 4, clear);
    clear_and_check("every texel holds 0x3E4CCCCD", background, word);
    set_target_format(target, A8B8G8R8);
    run("state back");
}

/* An sRGB target (A8BL8GL8RL8): the colour (0.8, 0.1, 0.25, 1) is stored encoded by the sRGB transfer function
 * (IEC 61966-2-1: 1.055 c^(1/2.4) - 0.055, x 255 and rounded; alpha stays linear), and additive blending adds in
 * linear space: the target's bytes decoded ((b / 255 + 0.055) / 1.055)^2.4, the sum encoded. The values, worked
 * out in double precision by the formulas, are each at least 0.38 from a rounding tie:
 * 0.8 -> 231.115, 0.1 -> 89.044, 0.25 -> 136.960; 0.8 + 0x14 -> 232.005, 0.1 + 0x20 -> 95.003,
 * 0.25 + 0x1D -> 140.009. */
static void srgb_target(void) {
    const uint8_t background[4] = {0x14, 0x20, 0x1D, 0x44};
    const uint32_t colour[4] = {F_0_8, 0x3DCCCCCDu /* 0.1 */, 0x3E800000u /* 0.25 */, F_1};
    Vertex coloured[3] = {triangle[0], triangle[1], triangle[2]};
    for (int i = 0; i < 3; i++) memcpy(coloured[i].colour, colour, 16);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8BL8GL8RL8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    put_vertices(coloured, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    for (int blended = 0; blended < 2; blended++) {
        print(blended ? "-- an sRGB target, additive blending in linear space\n"
                      : "-- an sRGB target: the colour stored sRGB-encoded\n");
        fill_target(background);
        if (blended) {
            uint32_t equation[3] = {OGL_FUNC_ADD, OGL_ONE, OGL_ONE};
            method(SET_BLEND_COLOR_OP, 3, equation);
            set(SET_BLEND, 1);
        }
        draw_arrays(3, 0);
        set(SET_BLEND, 0);
        run("draw");
        const uint8_t encoded[4] = {231, 89, 137, 255}, sums[4] = {232, 95, 140, 255};
        uint32_t count, wrong = wrong_pixels(in_triangle, blended ? sums : encoded, background, &count);
        report(blended ? "covered pixels hold the encoded linear sums (232, 95, 140, 255)"
                       : "covered pixels hold (231, 89, 137, 255)",
               wrong, count);
    }
    target[2] = A8B8G8R8;
    method(SET_COLOR_TARGET_A + 8, 4, target);
    run("state back");
}

/* The viewport index: the small triangle twice in one draw, the first copy's vertices naming viewport 0, the
 * second's viewport 1, whose offset is (16, 4) pixels further and whose scissor ends at x = 40. */
static int in_viewports(uint32_t x, uint32_t y) {
    Vertex moved[3];
    for (int i = 0; i < 3; i++) moved[i] = (Vertex){small[i].x + 256, small[i].y + 64, {0}};
    return inside(small, x, y) || (inside(moved, x, y) && x < 40);
}

static void viewports(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    print("-- the viewport index: a triangle through viewport 0, its copy through viewport 1 (moved, scissored)\n");
    fill_target(background);
    Vertex both[6];
    for (int i = 0; i < 6; i++) both[i] = small[i % 3];
    put_vertices(both, 6);
    stream(0, VERTICES, 32, 32 * 6);
    uint32_t *index = (uint32_t *)(gpu.memory + INSTANCES);
    for (int i = 0; i < 6; i++) index[i] = i < 3 ? 0 : 1;
    set(SET_VERTEX_ATTRIBUTE_A + 8, 1 | UINT_R32); /* generic 2: stream 1, a word a vertex */
    stream(1, INSTANCES, 4, 24);
    set(SET_VERTEX_STREAM_INSTANCE_A + 4, 0);
    uint32_t viewport[6] = {float_bits(32, 0), float_bits(16, 0), 0x3F000000u,
                            float_bits(48, 0), float_bits(20, 0), 0x3F000000u};
    method(SET_VIEWPORT_SCALE_X + 32, 6, viewport);
    uint32_t clip[2] = {(uint32_t)WIDTH << 16, (uint32_t)HEIGHT << 16};
    method(SET_VIEWPORT_CLIP_HORIZONTAL + 16, 2, clip);
    uint32_t scissor[3] = {1, 40u << 16, (uint32_t)HEIGHT << 16}; /* ENABLE, HORIZONTAL (x 0-40), VERTICAL */
    method(SET_SCISSOR_ENABLE + 16, 3, scissor);
    use_programs(VIEWPORT_VS, PERSPECTIVE_PS);
    draw_arrays(6, 0);
    run("draw");
    const uint8_t small_colour[4] = {204, 51, 153, 255};
    uint32_t count, wrong = wrong_pixels(in_viewports, small_colour, background, &count);
    report("the triangle, and its copy 16 pixels right and 4 down cut at x = 40", wrong, count);

    print("-- the pixel program reads the viewport index (a[0x68]): each copy's pixels hold its viewport\n");
    fill_target(background);
    copy_program(VIEWPORT_PS, viewport_ps, viewport_ps_end);
    use_programs(VIEWPORT_VS, VIEWPORT_PS);
    draw_arrays(6, 0);
    run("draw");
    wrong = 0, count = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            Vertex moved[3];
            for (int i = 0; i < 3; i++) moved[i] = (Vertex){small[i].x + 256, small[i].y + 64, {0}};
            /* The second copy comes later in the draw: where the two overlap, it is on top. */
            int second = inside(moved, x, y) && x < 40, first = inside(small, x, y);
            uint8_t expected[4] = {(uint8_t)second, 0, 255, 255};
            if (!second && !first) memcpy(expected, background, 4);
            count += second || first;
            wrong += memcmp(gpu.memory + TARGET + 256 * y + 4 * x, expected, 4) != 0;
        }
    report("viewport 0's copy holds 0, viewport 1's 1", wrong, count);
    set(SET_SCISSOR_ENABLE + 16, 0);
    stream(0, VERTICES, 32, 32 * 4);
    run("state back");
}

/* One texture at colour slots 0 and 1 (the two-output program's targets): each slot writes only the channels its
 * SET_CT_WRITE enables, so with one slot's mask 0 the texture holds the other's output, and with the channels
 * split between them it holds some of each. */
static void one_texture_two_slots(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    struct {
        const char *what;
        uint32_t masks[2];
        uint8_t expected[4];
    } cases[] = {
        {"slot 0 writes RGBA, slot 1 nothing: output 0's colour", {0x1111, 0}, {51, 153, 204, 255}},
        {"slot 0 writes nothing, slot 1 RGBA: output 1's (1, 0, 1, 0)", {0, 0x1111}, {255, 0, 255, 0}},
        {"slot 0 writes R and G, slot 1 B and A: some of each", {0x0011, 0x1100}, {51, 153, 255, 0}},
    };
    set_address(SET_COLOR_TARGET_A + 64, TARGET);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 64 + 8, 4, target);
    set(SET_CT_SELECT, 2 | 0u << 4 | 1u << 7); /* outputs 0 and 1 to slots 0 and 1 */
    put_vertices(triangle, 3);
    use_programs(PASS_VS, TWO_PS);
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("one texture at two colour slots, ", cases[k].what);
        fill_target(background);
        method(SET_CT_WRITE, 2, cases[k].masks);
        draw_arrays(3, 0);
        run("draw");
        uint32_t count, wrong = wrong_pixels(in_triangle, cases[k].expected, background, &count);
        report(cases[k].what, wrong, count);
    }
    print("-- output 0 to slot 2, which has no format, output 1 to the texture: output 1's (1, 0, 1, 0) lands\n");
    fill_target(background);
    uint32_t masks[2] = {0x1111, 0x1111};
    method(SET_CT_WRITE, 2, masks);
    set(SET_CT_SELECT, 2 | 2u << 4 | 1u << 7);
    draw_arrays(3, 0);
    run("draw");
    const uint8_t second[4] = {255, 0, 255, 0};
    uint32_t count, wrong = wrong_pixels(in_triangle, second, background, &count);
    report("covered pixels hold output 1's colour", wrong, count);
    masks[1] = 0;
    method(SET_CT_WRITE, 2, masks);
    set(SET_CT_SELECT, 1);
    run("state back");
}

/* Dual-source blending: (SRC1_COLOR, ONE_MINUS_SRC1_COLOR) reads colour output 1, the two-output program's
 * (1, 0, 1, 0), as the second source, so target 0 takes output 0's R and B and keeps its G and A. */
static void dual_source_blending(void) {
    print("-- dual-source blending: SRC1_COLOR (1, 0, 1, 0) picks output 0's R and B, the target's G and A\n");
    const uint8_t blended[4] = {51, 0x22, 204, 0x44};
    blended_triangle("covered pixels hold (51, 0x22, 204, 0x44)", TWO_PS, OGL_SRC1_COLOR, OGL_ONE_MINUS_SRC1_COLOR,
                     blended);
}

/* SET_SINGLE_CT_WRITE_CONTROL: SET_CT_WRITE(0) masks every target. Two targets (slots 0 and 1, two textures)
 * with entry 0 enabling R and G and entry 1 everything: both take only R and G of their outputs. */
static void single_write_control(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    print("-- SET_SINGLE_CT_WRITE_CONTROL: entry 0's mask (R, G) for both targets\n");
    set_address(SET_COLOR_TARGET_A + 64, SECOND_TARGET);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 64 + 8, 4, target);
    set(SET_CT_SELECT, 2 | 0u << 4 | 1u << 7);
    fill_target(background);
    for (uint32_t i = 0; i < WIDTH * HEIGHT; i++) memcpy(gpu.memory + SECOND_TARGET + 4 * i, background, 4);
    uint32_t masks[2] = {0x0011, 0x1111};
    method(SET_CT_WRITE, 2, masks);
    set(SET_SINGLE_CT_WRITE_CONTROL, 1);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, TWO_PS);
    draw_arrays(3, 0);
    set(SET_SINGLE_CT_WRITE_CONTROL, 0);
    masks[0] = 0x1111;
    masks[1] = 0;
    method(SET_CT_WRITE, 2, masks);
    set(SET_CT_SELECT, 1);
    run("draw");
    const uint8_t first[4] = {51, 153, 0x33, 0x44}, second[4] = {255, 0, 0x33, 0x44};
    uint32_t count, wrong = wrong_pixels(in_triangle, first, background, &count);
    report("target 0: output 0's R and G", wrong, count);
    memcpy(gpu.memory + TARGET, gpu.memory + SECOND_TARGET, WIDTH * HEIGHT * 4);
    wrong = wrong_pixels(in_triangle, second, background, &count);
    report("target 1: output 1's R and G", wrong, count);
}

/* A program that outputs only R and G of target 0 (the constant (1, 0)), drawn with additive blending: R and G
 * blend, B and A keep their texels as if masked off. */
static void unwritten_components(void) {
    print("-- a program without B and A outputs, blending (ONE, ONE): B and A keep their texels\n");
    const uint8_t blended[4] = {255, 0x22, 0x33, 0x44};
    blended_triangle("covered pixels hold (255, 0x22, 0x33, 0x44)", RG_PS, OGL_ONE, OGL_ONE, blended);
}

/* Quads, a quad strip and a polygon, each the rectangle's four corners: the rectangle's pixels, each once. */
static void quads_and_polygons(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44}, colour[4] = {153, 204, 51, 255};
    const Vertex around[4] = {
        {165, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {700, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {700, 420, {F_0_6, F_0_8, F_0_2, F_1}},
        {165, 420, {F_0_6, F_0_8, F_0_2, F_1}},
    };
    /* A quad strip takes 0, 1, 3, 2 around its first quad. */
    const Vertex strip[4] = {around[0], around[1], around[3], around[2]};
    struct {
        const char *what;
        uint32_t topology;
        const Vertex *vertices;
    } cases[] = {
        {"a quad (QUADS)", QUADS, around},
        {"a quad strip of one quad (QUAD_STRIP)", QUAD_STRIP, strip},
        {"a four-cornered polygon (POLYGON)", POLYGON, around},
    };
    use_programs(PASS_VS, PERSPECTIVE_PS);
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("", cases[k].what);
        fill_target(background);
        put_vertices(cases[k].vertices, 4);
        draw_primitives(cases[k].topology, 4);
        run("draw");
        uint32_t count, wrong = wrong_pixels(in_rectangle, colour, background, &count);
        report("the rectangle's pixels, and nothing else", wrong, count);
    }
}

#define DRAW_INLINE_INDEX 0x15E8u
#define DRAW_INLINE_INDEX2X16 0x15F0u
#define DRAW_INLINE_INDEX4X8 0x1304u

/* Words of one method, sent non-incrementing (each to the same method). */
static void method_repeated(uint32_t offset, uint32_t count, const uint32_t *values) {
    words[n++] = PB_NONINC(0, offset, count);
    for (uint32_t i = 0; i < count; i++) words[n++] = values[i];
}

/* Indices in the pushbuffer (clb197.h): DRAW_INLINE_INDEX one 32-bit index a method, DRAW_INLINE_INDEX2X16 two
 * (EVEN 15:0, then ODD 31:16), DRAW_INLINE_INDEX4X8 four (INDEX0 7:0 first), collected from BEGIN to END, the
 * forms mixed as nouveau sends them (an odd count's first indices one a method, the rest packed). The rectangle's
 * six indices, with its triangles split across methods, give its pixels. */
static void inline_indices(void) {
    const uint32_t one[6] = {0, 1, 2, 2, 1, 3}, pairs[3] = {1u << 16 | 0, 2u << 16 | 2, 3u << 16 | 1},
                   first_two[2] = {0, 1}, packed = 3u << 24 | 1u << 16 | 2u << 8 | 2;
    struct {
        const char *what;
        uint32_t method, count;
        const uint32_t *values;
    } cases[] = {
        {"DRAW_INLINE_INDEX: six 32-bit indices", DRAW_INLINE_INDEX, 6, one},
        {"DRAW_INLINE_INDEX2X16: three pairs of 16-bit indices", DRAW_INLINE_INDEX2X16, 3, pairs},
        {"DRAW_INLINE_INDEX twice, then DRAW_INLINE_INDEX4X8 with four 8-bit indices", DRAW_INLINE_INDEX4X8, 1, &packed},
    };
    use_programs(PASS_VS, PERSPECTIVE_PS);
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("inline indices, ", cases[k].what);
        fill_target(target_background);
        put_vertices(rectangle, 4);
        set(BEGIN, TRIANGLES);
        if (cases[k].method == DRAW_INLINE_INDEX4X8) method_repeated(DRAW_INLINE_INDEX, 2, first_two);
        method_repeated(cases[k].method, cases[k].count, cases[k].values);
        set(END, 0);
        run("draw");
        uint32_t count, wrong = wrong_pixels(in_rectangle, rectangle_colour, target_background, &count);
        report("the rectangle's pixels, each drawn once, and nothing else", wrong, count);
    }
}

/* Conditional rendering: with SET_RENDER_ENABLE_C RENDER_IF_EQUAL (NOT_EQUAL) a draw happens only when the 64-bit
 * values at the address and 16 bytes on are equal (differ), as they are in memory when the draw comes. */
static void conditional_rendering(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44}, colour[4] = {51, 153, 204, 255};
    struct {
        const char *what;
        uint32_t mode;
        uint64_t second;
        int drawn;
    } cases[] = {
        {"RENDER_IF_EQUAL, the values equal: drawn", RENDER_IF_EQUAL, 0x500000005ull, 1},
        {"RENDER_IF_EQUAL, the values differ in their high words: not drawn", RENDER_IF_EQUAL, 0x600000005ull, 0},
        {"RENDER_IF_NOT_EQUAL, the values differ: drawn", RENDER_IF_NOT_EQUAL, 0x600000005ull, 1},
        {"RENDER_IF_NOT_EQUAL, the values equal: not drawn", RENDER_IF_NOT_EQUAL, 0x500000005ull, 0},
    };
    put_vertices(triangle, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    set_address(SET_RENDER_ENABLE_A, CONDITION);
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("conditional rendering, ", cases[k].what);
        fill_target(background);
        uint64_t first = 0x500000005ull;
        memcpy(gpu.memory + CONDITION, &first, 8);
        memcpy(gpu.memory + CONDITION + 16, &cases[k].second, 8);
        set(SET_RENDER_ENABLE_C, cases[k].mode);
        draw_arrays(3, 0);
        set(SET_RENDER_ENABLE_C, RENDER_TRUE);
        run("draw");
        uint32_t count, wrong = wrong_pixels(in_triangle, cases[k].drawn ? colour : background, background, &count);
        report(cases[k].what, wrong, count);
    }
}

/* ---- Depth and stencil ------------------------------------------------------------------------------------ */

/* A texel of the zeta target: depth in bits 31:8, stencil in 7:0 (Z24S8). */
static uint32_t zeta_texel(uint32_t x, uint32_t y) {
    uint32_t texel;
    memcpy(&texel, gpu.memory + ZETA + block_linear_offset(4 * x, y, 4 * WIDTH, 1), 4);
    return texel;
}

/* Drawn in this order under LESS: the rectangle at z 0.5 (colour A), the triangle at z 0.25 (B), the small
 * triangle at z 0.75 (C): B wins where it covers, then A, then C where neither does. */
static const uint8_t colour_a[4] = {153, 204, 51, 255}, colour_b[4] = {51, 153, 204, 255}, colour_c[4] = {204, 51, 153, 255};
static void expected_by_depth(uint32_t x, uint32_t y, uint8_t out[4]) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    memcpy(out, in_triangle(x, y) ? colour_b : in_rectangle(x, y) ? colour_a : in_small(x, y) ? colour_c : background, 4);
}

/* The rectangle (colour A) with z `left` at its left corners and `right` at its right ones. */
static void draw_indexed_rectangle_sloped(uint32_t left, uint32_t right) {
    const Vertex corners[4] = {
        {165, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {700, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {165, 420, {F_0_6, F_0_8, F_0_2, F_1}},
        {700, 420, {F_0_6, F_0_8, F_0_2, F_1}},
    };
    put_vertices(corners, 4);
    uint32_t *out = (uint32_t *)(gpu.memory + VERTICES);
    out[8 * 0 + 2] = out[8 * 2 + 2] = left;
    out[8 * 1 + 2] = out[8 * 3 + 2] = right;
    set(BEGIN, TRIANGLES);
    set(DRAW_INDEX_BUFFER, 6);
    set(END, 0);
}

static void draw_indexed_rectangle(void) { draw_indexed_rectangle_sloped(vertex_z, vertex_z); }

#define VOLUME 0x40000u /* a 64 x 32 x 4 block-linear volume of 4-byte texels (32 KiB), then a 2-layer array */
#define VOLUME_ARRAY (VOLUME + 0x8000u)
#define THIRD_DIMENSION_DEFINES_DEPTH_SIZE (1u << 16)
#define SET_RT_LAYER 0x15CCu

/* Slice (or layer) `slice`'s own background: every slice unlike the others. */
static void slice_background(uint32_t slice, uint8_t out[4]) {
    for (int c = 0; c < 4; c++) out[c] = (uint8_t)(0x21 * (slice + 1) + 0x10 * c);
}

/* The texels of `slices` slices (or layers), each its background but where `covered` says the triangle's
 * colour: `address` gives each texel's place. Returns the texels that are not so. */
static uint32_t wrong_slices(uint32_t slices, int (*covered)(uint32_t, uint32_t, uint32_t),
                             uint64_t (*address)(uint32_t, uint32_t, uint32_t)) {
    uint32_t wrong = 0;
    for (uint32_t z = 0; z < slices; z++)
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++) {
                uint8_t expected[4];
                slice_background(z, expected);
                if (covered(x, y, z)) memcpy(expected, triangle_colour, 4);
                wrong += memcmp(gpu.memory + address(x, y, z), expected, 4) != 0;
            }
    return wrong;
}

/* The triangle in slice `drawn_slice` alone; or in every layer z, moved by instance z's offset (16, 4) x z. */
static uint32_t drawn_slice;
static int in_drawn_slice(uint32_t x, uint32_t y, uint32_t z) { return z == drawn_slice && in_triangle(x, y); }
static int in_instance_layer(uint32_t x, uint32_t y, uint32_t z) {
    return x >= 16 * z && y >= 4 * z && in_triangle(x - 16 * z, y - 4 * z);
}

static void report_texels(const char *what, uint32_t wrong, uint32_t of) {
    check(wrong == 0, what);
    print("   texels wrong ");
    print_u64(wrong);
    print(" of ");
    print_u64(of);
    print("\n");
}

static void fill_slices(uint32_t slices, uint64_t (*address)(uint32_t, uint32_t, uint32_t)) {
    for (uint32_t z = 0; z < slices; z++)
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++) slice_background(z, gpu.memory + address(x, y, z));
}

/* The volume: blocks two GOBs tall and two deep. The array: blocks two GOBs tall, layers 0x2000 bytes apart. */
static uint64_t volume_texel(uint32_t x, uint32_t y, uint32_t z) {
    return VOLUME + block_linear_offset_3d(4 * x, y, z, 4 * WIDTH, HEIGHT, 1, 1);
}
static uint64_t array_texel(uint32_t x, uint32_t y, uint32_t layer) {
    return VOLUME_ARRAY + 0x2000u * layer + block_linear_offset(4 * x, y, 4 * WIDTH, 1);
}

/* Target 0 at `at`: block-linear A8B8G8R8 with `memory`'s block shape and third-dimension control, `third`
 * layers or slices, `array_pitch` bytes apart, drawn from `layer` (SET_COLOR_TARGET_LAYER). */
static void block_linear_target(uint32_t at, uint32_t memory, uint32_t third, uint32_t array_pitch, uint32_t layer) {
    set_address(SET_COLOR_TARGET_A, at);
    uint32_t target[7] = {WIDTH, HEIGHT, A8B8G8R8, memory, third, array_pitch / 4, layer};
    method(SET_COLOR_TARGET_A + 8, 7, target);
}

/* The triangle's two instances through layer.vs and `pixel` into the two layers of the array (instance i into
 * layer i, as SET_RT_LAYER lets the program pick), their backgrounds filled first; then target 0 as before. */
static void instances_into_layers(uint32_t pixel) {
    fill_slices(2, array_texel);
    block_linear_target(VOLUME_ARRAY, 1u << 4, 2, 0x2000, 0);
    use_programs(LAYER_VS, pixel);
    set(SET_RT_LAYER, 1u << 16);
    draw_arrays(3, 0);
    draw_arrays(3, INSTANCE_SUBSEQUENT);
    set(SET_RT_LAYER, 0);
    block_linear_target(TARGET, 0, 0, 0, 0);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    run("draws");
}

/* Rendering into one slice of a 3D texture (BEHAVIOURS 1.13) and one layer of an array, chosen by
 * SET_COLOR_TARGET_LAYER as NVK binds a view of one slice: the triangle lands in that slice, placed by the
 * volume's block-linear layout (GOBs stacked down, then back, inside each block), and every other slice keeps
 * its bytes. */
static void volume_and_array_targets(void) {
    print("-- a 3D target (64 x 32 x 4, blocks 2 GOBs tall and deep): the triangle into slice 2 (LAYER 2)\n");
    fill_slices(4, volume_texel);
    block_linear_target(VOLUME, 1u << 4 | 1u << 8 | THIRD_DIMENSION_DEFINES_DEPTH_SIZE, 4, 0, 2);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    draw_arrays(3, 0);
    run("draw");
    drawn_slice = 2;
    report_texels("slice 2 holds the triangle over its background, the other slices theirs",
                  wrong_slices(4, in_drawn_slice, volume_texel), 4 * WIDTH * HEIGHT);

    print("-- an array target of 2 layers: the triangle into layer 1 (LAYER 1)\n");
    fill_slices(2, array_texel);
    block_linear_target(VOLUME_ARRAY, 1u << 4, 2, 0x2000, 1);
    draw_arrays(3, 0);
    run("draw");
    drawn_slice = 1;
    report_texels("layer 1 holds the triangle over its background, layer 0 its own",
                  wrong_slices(2, in_drawn_slice, array_texel), 2 * WIDTH * HEIGHT);

    print("-- the program picks the layer (SET_RT_LAYER GEOMETRY_SHADER_SELECTS_LAYER): instance i into layer i\n");
    instance_offsets();
    copy_program(LAYER_VS, layer_vs, layer_vs_end);
    instances_into_layers(PERSPECTIVE_PS);
    report_texels("layer 0 holds instance 0, layer 1 instance 1 (moved by 16, 4)",
                  wrong_slices(2, in_instance_layer, array_texel), 2 * WIDTH * HEIGHT);

    print("-- the pixel program reads the layer it draws into (a[0x64]): instance i's pixels hold i\n");
    copy_program(LAYER_PS, layer_ps, layer_ps_end);
    instances_into_layers(LAYER_PS);
    uint32_t wrong = 0;
    for (uint32_t z = 0; z < 2; z++)
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++) {
                uint8_t expected[4] = {(uint8_t)z, 0, 255, 255};
                if (!in_instance_layer(x, y, z)) slice_background(z, expected);
                wrong += memcmp(gpu.memory + array_texel(x, y, z), expected, 4) != 0;
            }
    report_texels("each layer's pixels hold its number", wrong, 2 * WIDTH * HEIGHT);
}

/* Macro instructions, fields as envytools' MME documentation lays them out (gpu/src/engine/mme.rs's table):
 * add-immediate (opcode 1) with a result operation, bitfield replace (opcode 2) and branches (opcode 7). */
#define MME_FETCH 0u           /* dst = the next parameter */
#define MME_MOVE 1u            /* dst = result */
#define MME_MOVE_SET_METHOD 2u /* dst = result; the method address = result */
#define MME_MOVE_SEND 4u       /* dst = result; send result to the method address, which steps by its increment */
#define MME_ADDI(result, dst, a, immediate) \
    ((uint32_t)(immediate) << 14 | (uint32_t)(a) << 11 | (uint32_t)(dst) << 8 | (result) << 4 | 1u)
#define MME_SET_METHOD(method, increment) MME_ADDI(MME_MOVE_SET_METHOD, 0, 0, (increment) << 12 | (method) >> 2)
#define MME_SEND(a) MME_ADDI(MME_MOVE_SEND, 0, a, 0)
/* dst = a with bits [to, to + size) replaced by b's bits from `from`. */
#define MME_REPLACE(dst, a, b, to, size, from)                                                               \
    ((uint32_t)(to) << 27 | (uint32_t)(size) << 22 | (uint32_t)(from) << 17 | (uint32_t)(b) << 14 | \
     (uint32_t)(a) << 11 | (uint32_t)(dst) << 8 | MME_MOVE << 4 | 2u)
/* Jumps by `offset` instructions when a is zero (or non-zero), with no delay slot. */
#define MME_BRANCH(a, if_non_zero, offset) \
    ((uint32_t)(offset) << 14 | (uint32_t)(a) << 11 | 1u << 5 | (uint32_t)(if_non_zero) << 4 | 7u)
#define MME_EXIT (MME_ADDI(MME_MOVE, 0, 0, 0) | 1u << 7)
#define MME_NOP MME_ADDI(MME_MOVE, 0, 0, 0)
#define LOAD_MME_INSTRUCTION_RAM_POINTER 0x0114u
#define LOAD_MME_START_ADDRESS_RAM_POINTER 0x011Cu
#define CALL_MME_MACRO(j) (0x3800u + 8u * (j))
#define SET_GLOBAL_BASE_VERTEX_INDEX 0x1434u
#define SET_GLOBAL_BASE_INSTANCE_INDEX 0x1438u
#define SET_INDEX_BUFFER_F 0x17DCu
#define INDIRECT 0x13F60u /* draw parameters for indirect draws, 32 bytes */

/* The macro an indirect draw calls, as a driver writes one (a Maxwell GPU has no indirect draw method: NVN's
 * macros take the topology from the command buffer and the draw's words from a GPFIFO entry that points at the
 * indirect buffer). Parameters: BEGIN's topology, then the indirect buffer's words as Vulkan lays them out: for
 * arrays vertex count, instance count, first vertex, first instance; indexed, index count, instance count, first
 * index, vertex offset, first instance. One launch per instance, the first with INSTANCE_ID FIRST and the others
 * SUBSEQUENT, with the base vertex and instance in SET_GLOBAL_BASE_VERTEX_INDEX and _INSTANCE_INDEX.
 * Registers: r1 topology, r2 count, r3 instances left, r4 first, r5 base instance, r6 base vertex, r7 = 1. */
static uint32_t indirect_draw_macro(uint32_t *code, int indexed) {
    uint32_t k = 0;
    code[k++] = MME_ADDI(MME_FETCH, 2, 0, 0);
    code[k++] = MME_ADDI(MME_FETCH, 3, 0, 0);
    code[k++] = MME_ADDI(MME_FETCH, 4, 0, 0);
    if (indexed) {
        code[k++] = MME_ADDI(MME_FETCH, 6, 0, 0);
        code[k++] = MME_SET_METHOD(SET_GLOBAL_BASE_VERTEX_INDEX, 0);
        code[k++] = MME_SEND(6);
    }
    code[k++] = MME_ADDI(MME_FETCH, 5, 0, 0);
    code[k++] = MME_SET_METHOD(SET_GLOBAL_BASE_INSTANCE_INDEX, 0);
    code[k++] = MME_SEND(5);
    code[k++] = MME_ADDI(MME_MOVE, 7, 0, 1);
    uint32_t skip = k;
    code[k++] = 0; /* to the exit when no instances are asked for: filled in below */
    uint32_t loop = k;
    code[k++] = MME_SET_METHOD(BEGIN, 0);
    code[k++] = MME_SEND(1);
    /* SET_VERTEX_ARRAY_START then DRAW_VERTEX_ARRAY, or SET_INDEX_BUFFER_F then DRAW_INDEX_BUFFER. */
    code[k++] = MME_SET_METHOD(indexed ? SET_INDEX_BUFFER_F : SET_VERTEX_ARRAY_START, 1);
    code[k++] = MME_SEND(4);
    code[k++] = MME_SEND(2);
    code[k++] = MME_SET_METHOD(END, 0);
    code[k++] = MME_SEND(0);
    code[k++] = MME_REPLACE(1, 1, 7, 26, 2, 0); /* INSTANCE_ID = SUBSEQUENT */
    code[k++] = MME_ADDI(MME_MOVE, 3, 3, -1);
    code[k] = MME_BRANCH(3, 1, (int32_t)loop - (int32_t)k);
    k++;
    code[skip] = MME_BRANCH(3, 0, k - skip);
    code[k++] = MME_EXIT;
    code[k++] = MME_NOP;
    return k;
}

/* Uploads the two indirect draw macros: arrays as macro 0, indexed as macro 1. */
static void upload_indirect_draw_macros(void) {
    uint32_t code[2][32], length[2];
    for (int indexed = 0; indexed < 2; indexed++) length[indexed] = indirect_draw_macro(code[indexed], indexed);
    set(LOAD_MME_START_ADDRESS_RAM_POINTER, 0);
    words[n++] = PB_NONINC(0, LOAD_MME_START_ADDRESS_RAM_POINTER + 4, 2);
    words[n++] = 0;
    words[n++] = length[0];
    set(LOAD_MME_INSTRUCTION_RAM_POINTER, 0);
    words[n++] = PB_NONINC(0, LOAD_MME_INSTRUCTION_RAM_POINTER + 4, length[0] + length[1]);
    for (int indexed = 0; indexed < 2; indexed++)
        for (uint32_t i = 0; i < length[indexed]; i++) words[n++] = code[indexed][i];
}

/* An indirect draw as a driver submits one: the commands so far and the macro call with its topology in one
 * GPFIFO entry, the call's other parameters in a second entry that is the indirect buffer itself (`words` long,
 * at INDIRECT), and the END of the batch in a third. */
static void draw_indirect(uint32_t macro, uint32_t topology, uint32_t indirect_words) {
    words[n++] = PB_ONEINC(0, CALL_MME_MACRO(macro), 1 + indirect_words);
    words[n++] = topology;
    uint64_t entries[2] = {gpu_push(&gpu, words, n), gpu_entry(&gpu, INDIRECT, indirect_words)};
    n = 0;
    expect("an indirect draw's GPFIFO entries", gpu_run_entries(&gpu, entries, 2), 0);
}

static int in_moved_rectangle(uint32_t x, uint32_t y) { return x >= 16 && y >= 4 && in_rectangle(x - 16, y - 4); }

/* Indirect draws through macros: the draw's counts come from memory the command buffer points at, written by the
 * CPU or by the GPU before. */
static void indirect_draws(void) {
    print("-- indirect draws: two instances from vertex 3, then indexed from index 6 at vertex offset 4 and "
          "instance 1\n");
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    uint32_t count, wrong;
    upload_indirect_draw_macros();
    run("the indirect draw macros");
    fill_target(background);
    /* Vertices 0-2 are junk the draw must skip: a triangle covering everything. */
    const Vertex junk = {0, 0, {F_1, F_1, F_1, F_1}};
    Vertex vertices[6] = {junk, {1024, 0, {0}}, {0, 512, {0}}, small[0], small[1], small[2]};
    put_vertices(vertices, 6);
    stream(0, VERTICES, 32, 32 * 6);
    instance_offsets();
    use_programs(OFFSET_VS, PERSPECTIVE_PS);
    uint32_t *indirect = (uint32_t *)(gpu.memory + INDIRECT);
    const uint32_t arrays[4] = {3, 2, 3, 0};
    memcpy(indirect, arrays, sizeof arrays);
    draw_indirect(0, TRIANGLES, 4);
    const uint8_t small_colour[4] = {204, 51, 153, 255};
    wrong = wrong_pixels(in_instances, small_colour, background, &count);
    report("the triangle and its second instance 16 pixels right and 4 down", wrong, count);

    /* The rectangle's vertices at 4-7, its indices at 6-11; the index count is the GPU's: a semaphore release
     * writes it in an earlier submission. */
    fill_target(background);
    const Vertex corners[8] = {
        junk, junk, junk, junk,
        {165, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {700, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {165, 420, {F_0_6, F_0_8, F_0_2, F_1}},
        {700, 420, {F_0_6, F_0_8, F_0_2, F_1}},
    };
    put_vertices(corners, 8);
    stream(0, VERTICES, 32, 32 * 8);
    const uint16_t indices[12] = {3, 2, 1, 3, 2, 1, 0, 1, 2, 2, 1, 3};
    memcpy(gpu.memory + INDICES, indices, sizeof indices);
    index_buffer(INDICES, sizeof indices);
    set(SET_INDEX_BUFFER_A + 16, 1 /* TWO_BYTES */);
    const uint32_t indexed[5] = {0, 1, 6, 4, 1};
    memcpy(indirect, indexed, sizeof indexed);
    set_address(SET_REPORT_SEMAPHORE_A, INDIRECT);
    set(SET_REPORT_SEMAPHORE_A + 8, 6);
    set(SET_REPORT_SEMAPHORE_A + 12, 1u << 28); /* RELEASE, ONE_WORD */
    run("the index count written by the GPU");
    check(indirect[0] == 6, "the semaphore release wrote the index count");
    draw_indirect(1, TRIANGLES, 5);
    wrong = wrong_pixels(in_moved_rectangle, rectangle_colour, background, &count);
    report("the rectangle of indices 6-11 at vertex offset 4, moved as instance 1", wrong, count);

    /* Back as the later cases expect: the rectangle's six indices from index 0, four vertices, no bases. */
    set(SET_GLOBAL_BASE_VERTEX_INDEX, 0);
    set(SET_GLOBAL_BASE_INSTANCE_INDEX, 0);
    set(SET_INDEX_BUFFER_F, 0);
    memcpy(gpu.memory + INDICES, indices + 6, 12);
    index_buffer(INDICES, 12);
    stream(0, VERTICES, 32, 32 * 4);
    run("state back");
}

/* A counter's report (REPORT_ONLY, four words: the 64-bit value, then the timestamp) at REPORTS + 16 * `slot`. */

#define SET_STREAM_OUT_BUFFER_ENABLE 0x0380u /* then _ADDRESS_A, _B, _SIZE, _LOAD_WRITE_POINTER; 32 bytes a buffer */
#define SET_STREAM_OUT_CONTROL_STREAM 0x0700u /* then _COMPONENT_COUNT, _STRIDE; 16 bytes a buffer */
#define SET_STREAM_OUTPUT 0x0744u
#define SET_STREAM_OUT_LAYOUT_SELECT 0x2800u /* 128 bytes a buffer */
#define DRAW_AUTO 0x123Cu
#define SET_DRAW_AUTO_STRIDE 0x1318u
#define SET_DRAW_AUTO_START 0x13A4u
#define REPORT_STREAMING_PRIMITIVES_SUCCEEDED 0x0Bu
#define REPORT_STREAMING_PRIMITIVES_NEEDED 0x0Du
#define REPORT_STREAMING_BYTE_COUNT 0x1Au
#define REPORT_STREAMING_PRIMITIVES_NEEDED_MINUS_SUCCEEDED 0x06u
#define REPORT_TOTAL_STREAMING_PRIMITIVES_NEEDED_MINUS_SUCCEEDED 0x1Eu
#define XFB 0x4C000u /* stream output buffer 0 (0x100 bytes), then buffer 1 */
#define XFB_STRIDE 28u

/* Stream output buffer `j` at `at`: `size` bytes, vertices `stride` bytes apart taking `count` selects. */
static void stream_out_buffer(uint32_t j, uint32_t at, uint32_t size, uint32_t stride, uint32_t count,
                              const uint32_t *selects) {
    uint64_t address = gpu.gpu_address + at;
    uint32_t buffer[5] = {1, (uint32_t)(address >> 32), (uint32_t)address, size, 0 /* write pointer */};
    method(SET_STREAM_OUT_BUFFER_ENABLE + 32 * j, 5, buffer);
    uint32_t control[3] = {0 /* stream 0 */, count, stride};
    method(SET_STREAM_OUT_CONTROL_STREAM + 16 * j, 3, control);
    method(SET_STREAM_OUT_LAYOUT_SELECT + 128 * j, (count + 3) / 4, selects);
}

/* A STREAMING_BYTE_COUNT report of buffer `j` (one word: its write pointer) at REPORTS + 16 * `slot`. */
static void report_byte_count(uint32_t j, uint32_t slot) {
    set_address(SET_REPORT_SEMAPHORE_A, REPORTS + 16 * slot);
    set(SET_REPORT_SEMAPHORE_A + 12, REPORT_ONLY | REPORT_STREAMING_BYTE_COUNT << 23 | j << 5 | 1u << 28);
}

static int in_strip(uint32_t x, uint32_t y) { return in_rectangle(x, y); }

/* The wrong words of a stream output check, and the primitives succeeded (report slot 0) of those needed (1). */
static void print_captured(uint32_t wrong) {
    print("   words wrong ");
    print_u64(wrong);
    print(", primitives ");
    print_u64(reported(0));
    print(" of ");
    print_u64(reported(1));
    print("\n");
}

/* Checks `vertices` captured vertices at buffer 0 (XFB) against the vertex buffer's words of the strip's
 * vertices `order` (position, then colour R, G, then the skipped word untouched), and the bytes after them. */
static uint32_t wrong_captured(const uint32_t *order, uint32_t vertices) {
    const uint32_t *captured = (const uint32_t *)(gpu.memory + XFB), *input = (const uint32_t *)(gpu.memory + VERTICES);
    uint32_t wrong = 0;
    for (uint32_t v = 0; v < 0x100 / 4; v++) {
        uint32_t k = v % 7, expected = 0xABABABABu;
        if (v / 7 < vertices && k < 6) expected = input[8 * order[v / 7] + k];
        wrong += captured[v] != expected;
    }
    return wrong;
}

/* Stream output (transform feedback, BEHAVIOURS 5.10): a strip's vertices as pass.vs outputs them, written by
 * the rules (NVK's and nvc0's programming, the Vulkan order of a strip's triangles): buffer 0 takes position
 * (words 28-31) and generic 0's R and G (32, 33), then a skipped word (0xFF) it leaves as it was, 28 bytes a
 * vertex; buffer 1 generic 0's B, 12 bytes in all. The strip's second triangle does not fit buffer 1, so it goes
 * to neither; with buffer 1 off and rasterisation off (SET_RASTER_ENABLE), both triangles go to buffer 0 after
 * the first and the target keeps its texels; then DRAW_AUTO draws the nine vertices buffer 0 holds, its byte
 * count a report that a GPFIFO entry of its own hands to the method. */
static void stream_output(void) {
    print("-- stream output: a strip's triangles captured whole, buffer 1 full after one\n");
    const uint32_t c[4] = {F_0_2, F_0_6, F_0_8, F_1};
    Vertex strip[4] = {{165, 73, {0}}, {700, 73, {0}}, {165, 420, {0}}, {700, 420, {0}}};
    for (int i = 0; i < 4; i++) memcpy(strip[i].colour, c, 16);
    put_vertices(strip, 4);
    memset(gpu.memory + XFB, 0xAB, 0x200);
    memset(gpu.memory + REPORTS, 0, 0x100);
    const uint32_t selects0[2] = {0x1F1E1D1Cu, 0x00FF2120u}, selects1[1] = {0x22u};
    stream_out_buffer(0, XFB, 0x100, XFB_STRIDE, 7, selects0);
    stream_out_buffer(1, XFB + 0x100, 12, 4, 1, selects1);
    set(CLEAR_REPORT_VALUE, 0x10);
    set(CLEAR_REPORT_VALUE, 0x11);
    set(SET_STREAM_OUTPUT, 1);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    fill_target(target_background);
    draw_primitives(TRIANGLE_STRIP, 4);
    report_counter(REPORT_STREAMING_PRIMITIVES_SUCCEEDED, 0);
    report_counter(REPORT_STREAMING_PRIMITIVES_NEEDED, 1);
    report_byte_count(0, 2);
    report_byte_count(1, 3);
    report_counter(REPORT_STREAMING_PRIMITIVES_NEEDED_MINUS_SUCCEEDED, 4);
    report_counter(REPORT_TOTAL_STREAMING_PRIMITIVES_NEEDED_MINUS_SUCCEEDED, 5);
    run("draw");
    const uint32_t first[3] = {0, 1, 2}, all[9] = {0, 1, 2, 0, 1, 2, 1, 3, 2};
    uint32_t wrong = wrong_captured(first, 3);
    const uint32_t *input = (const uint32_t *)(gpu.memory + VERTICES), *blues = (const uint32_t *)(gpu.memory + XFB + 0x100);
    for (uint32_t v = 0; v < 4; v++) wrong += blues[v] != (v < 3 ? input[8 * v + 6] : 0xABABABABu);
    check(wrong == 0, "buffer 0 holds triangle (0, 1, 2) and buffer 1 its blues, nothing after");
    check(reported(0) == 1 && reported(1) == 2, "one primitive succeeded of two needed");
    check(reported(4) == 1 && reported(5) == 1, "NEEDED_MINUS_SUCCEEDED and its total over the streams: 1");
    check(*(uint32_t *)(gpu.memory + REPORTS + 32) == 3 * XFB_STRIDE && *(uint32_t *)(gpu.memory + REPORTS + 48) == 12,
          "the byte counts are the write pointers: 84 and 12");
    print_captured(wrong);

    print("-- stream output with rasterisation off: both triangles after the first, the target untouched\n");
    fill_target(target_background);
    set(SET_STREAM_OUT_BUFFER_ENABLE + 32, 0);
    set(SET_RASTER_ENABLE, 0);
    draw_primitives(TRIANGLE_STRIP, 4);
    set(SET_RASTER_ENABLE, 1);
    report_counter(REPORT_STREAMING_PRIMITIVES_SUCCEEDED, 0);
    report_byte_count(0, 2);
    run("draw");
    uint32_t count;
    wrong = wrong_captured(all, 9);
    check(wrong == 0, "buffer 0 holds the nine vertices in the strip's triangle order (0 1 2, 1 3 2)");
    check(reported(0) == 3 && *(uint32_t *)(gpu.memory + REPORTS + 32) == 9 * XFB_STRIDE, "three written, 252 bytes");
    wrong = wrong_pixels(in_strip, target_background, target_background, &count);
    report("the target keeps every texel", wrong, count);

    print("-- DRAW_AUTO: buffer 0's vertices drawn, as many as its byte count says\n");
    set(SET_STREAM_OUTPUT, 0);
    stream(0, XFB, XFB_STRIDE, 9 * XFB_STRIDE);
    set(SET_VERTEX_ATTRIBUTE_A + 4, 16u << 7 | FLOAT_R32_G32); /* generic 1: R and G at byte 16 */
    set(SET_DRAW_AUTO_STRIDE, XFB_STRIDE);
    set(SET_DRAW_AUTO_START, 0);
    set(BEGIN, TRIANGLES);
    words[n++] = PB_INC(0, DRAW_AUTO, 1);
    const uint32_t end[2] = {PB_INC(0, END, 1), 0};
    uint64_t entries[3] = {gpu_push(&gpu, words, n), gpu_entry(&gpu, REPORTS + 32, 1), gpu_push(&gpu, end, 2)};
    n = 0;
    expect("DRAW_AUTO's GPFIFO entries", gpu_run_entries(&gpu, entries, 3), 0);
    const uint8_t drawn[4] = {51, 153, 0, 255}; /* B and A absent from the stream: 0 and 1 */
    wrong = wrong_pixels(in_strip, drawn, target_background, &count);
    report("the strip's rectangle in the captured R and G", wrong, count);
    set(SET_VERTEX_ATTRIBUTE_A + 4, 16u << 7 | FLOAT_R32_G32_B32_A32);
    stream(0, VERTICES, 32, 32 * 4);
    run("state back");
}

#define XFB_GEOMETRY_STRIDE 20u

/* Stream output of a geometry program's vertices (BEHAVIOURS 5.10): for each of two input triangles, each of
 * strips.gs's two invocations emits a strip of four vertices (input vertices 0, 1, 2, then 0 moved by (0.25, 0))
 * and one of three (1, 2, 0), its vertices moved by invocation x (0.5, 0.25). Buffer 0 takes position and generic
 * 0's R (words 28-32) of each vertex of each whole triangle, in the order OpenGL and Vulkan give a geometry
 * program's primitives: input primitive, then invocation, then emission, each strip unrolled as a drawn strip is
 * (0 1 2, 1 3 2). The buffer has room for ten of the twelve triangles: the last two go nowhere. Every expected
 * word is exact: the moves are sums of powers of two. */
static void geometry_stream_output(void) {
    print("-- stream output of a geometry program: two strips an invocation, two invocations, two triangles\n");
    copy_program(STRIPS_GS, strips_gs, strips_gs_end);
    const Vertex input[6] = {{165, 73, {F_0_2}}, {700, 73, {F_0_6}}, {165, 420, {F_0_8}},
                             {300, 100, {F_1}},  {600, 150, {0x3E800000u}}, {400, 400, {0x3F400000u}}};
    put_vertices(input, 6);
    stream(0, VERTICES, 32, 32 * 6);
    memset(gpu.memory + XFB, 0xAB, 0x300);
    memset(gpu.memory + REPORTS, 0, 0x100);
    const uint32_t selects[2] = {0x1F1E1D1Cu, 0x20u};
    stream_out_buffer(0, XFB, 10 * 3 * XFB_GEOMETRY_STRIDE + 8, XFB_GEOMETRY_STRIDE, 5, selects);
    set(CLEAR_REPORT_VALUE, 0x10);
    set(CLEAR_REPORT_VALUE, 0x11);
    set(SET_STREAM_OUTPUT, 1);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    use_stage(4, STRIPS_GS);
    draw_arrays(6, 0);
    use_stage(4, ~0u);
    report_counter(REPORT_STREAMING_PRIMITIVES_SUCCEEDED, 0);
    report_counter(REPORT_STREAMING_PRIMITIVES_NEEDED, 1);
    report_byte_count(0, 2);
    set(SET_STREAM_OUTPUT, 0);
    stream(0, VERTICES, 32, 32 * 4);
    run("draw");
    /* Each invocation's triangles as (input vertex, moved by (0.25, 0)) pairs. */
    const uint32_t vertex_of[9] = {0, 1, 2, 1, 0, 2, 1, 2, 0}, moved[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    const uint32_t *captured = (const uint32_t *)(gpu.memory + XFB);
    uint32_t wrong = 0;
    for (uint32_t w = 0; w < 0x300 / 4; w++) {
        uint32_t v = w / 5, expected = 0xABABABABu;
        if (v < 30) {
            /* Three triangles an invocation: v / 9 counts invocations, input triangle after triangle. */
            uint32_t invocation = v / 9 % 2, k = v % 9;
            const Vertex *in = &input[3 * (v / 18) + vertex_of[k]];
            uint32_t words[5] = {float_bits(in->x - 512 + 256 * (int32_t)invocation + 128 * (int32_t)moved[k], 9),
                                 float_bits(in->y - 256 + 64 * (int32_t)invocation, 8), vertex_z, F_1, in->colour[0]};
            expected = words[w % 5];
        }
        wrong += captured[w] != expected;
    }
    check(wrong == 0, "buffer 0 holds ten triangles in primitive, invocation and emission order, nothing after");
    check(reported(0) == 10 && reported(1) == 12, "ten primitives succeeded of twelve needed");
    check(*(uint32_t *)(gpu.memory + REPORTS + 32) == 30 * XFB_GEOMETRY_STRIDE, "the byte count is 600");
    print_captured(wrong);
}

#define SET_RASTER_INPUT 0x0740u

/* A STREAMING_PRIMITIVES_SUCCEEDED report of vertex stream `s` (SUB_REPORT) at REPORTS + 16 * `slot`. */
static void report_stream_succeeded(uint32_t s, uint32_t slot) {
    set_address(SET_REPORT_SEMAPHORE_A, REPORTS + 16 * slot);
    set(SET_REPORT_SEMAPHORE_A + 12, REPORT_ONLY | REPORT_STREAMING_PRIMITIVES_SUCCEEDED << 23 | s << 5);
}

/* Vertex streams (BEHAVIOURS 5.10): streams.gs emits each input triangle as (0, 1, 2) on stream 0 and as
 * (2, 1, 0) on stream 1, the emissions interleaved. Buffer 0 takes stream 0 and buffer 1 stream 1 (position x, y
 * and generic 0's R of each vertex), each stream counting its own primitives (SUB_REPORT; stream 2 none). The
 * rasteriser takes the stream SET_RASTER_INPUT selects: as many samples pass with stream 0 or 1 as when the
 * triangles are drawn with no geometry program, none with stream 2. */
static void geometry_streams(void) {
    print("-- vertex streams: a geometry program's two streams into two buffers, and the rasteriser's stream\n");
    copy_program(STREAMS_GS, streams_gs, streams_gs_end);
    const Vertex input[6] = {{165, 73, {F_0_2}}, {700, 73, {F_0_6}}, {165, 420, {F_0_8}},
                             {300, 100, {F_1}},  {600, 150, {0x3E800000u}}, {400, 400, {0x3F400000u}}};
    put_vertices(input, 6);
    stream(0, VERTICES, 32, 32 * 6);
    memset(gpu.memory + XFB, 0xAB, 0x200);
    memset(gpu.memory + REPORTS, 0, 0x100);
    const uint32_t selects[1] = {0x201D1Cu}; /* x, y, generic 0's R */
    stream_out_buffer(0, XFB, 0x100, 12, 3, selects);
    stream_out_buffer(1, XFB + 0x100, 0x100, 12, 3, selects);
    set(SET_STREAM_OUT_CONTROL_STREAM + 16, 1); /* buffer 1 takes stream 1 */
    set(CLEAR_REPORT_VALUE, 0x10);
    set(CLEAR_REPORT_VALUE, 0x11);
    set(SET_STREAM_OUTPUT, 1);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    use_stage(4, STREAMS_GS);
    draw_arrays(6, 0);
    set(SET_STREAM_OUTPUT, 0);
    for (uint32_t s = 0; s < 3; s++) report_stream_succeeded(s, s);
    /* The samples that pass with each raster stream, and with no geometry program. */
    set(SET_ZPASS_PIXEL_COUNT, 1);
    for (uint32_t s = 0; s < 3; s++) {
        set(CLEAR_REPORT_VALUE, 0x01);
        set(SET_RASTER_INPUT, s);
        draw_arrays(6, 0);
        report_counter(REPORT_ZPASS_PIXEL_CNT64, 4 + s);
    }
    set(SET_RASTER_INPUT, 0);
    use_stage(4, ~0u);
    set(CLEAR_REPORT_VALUE, 0x01);
    draw_arrays(6, 0);
    report_counter(REPORT_ZPASS_PIXEL_CNT64, 7);
    set(SET_ZPASS_PIXEL_COUNT, 0);
    stream(0, VERTICES, 32, 32 * 4);
    run("draws");
    const uint32_t *captured = (const uint32_t *)(gpu.memory + XFB);
    uint32_t wrong = 0;
    for (uint32_t w = 0; w < 0x200 / 4; w++) {
        /* Buffer b holds stream b's triangles, input triangle after triangle: (0, 1, 2) or (2, 1, 0). */
        uint32_t b = w / 64, v = w % 64 / 3, expected = 0xABABABABu;
        if (v < 6) {
            uint32_t k = v % 3, vertex = b == 0 ? k : 2 - k;
            const Vertex *in = &input[3 * (v / 3) + vertex];
            uint32_t words[3] = {float_bits(in->x - 512, 9), float_bits(in->y - 256, 8), in->colour[0]};
            expected = words[w % 64 % 3];
        }
        wrong += captured[w] != expected;
    }
    check(wrong == 0, "buffer 0 holds stream 0's two triangles, buffer 1 stream 1's, nothing after");
    check(reported(0) == 2 && reported(1) == 2 && reported(2) == 0, "streams 0 and 1 wrote two primitives each, 2 none");
    check(reported(7) > 0 && reported(4) == reported(7) && reported(5) == reported(7),
          "the rasteriser takes stream 0's triangles, or stream 1's, as many samples as without the program");
    check(reported(6) == 0, "and nothing from stream 2, on which the program emits nothing");
}

#define MULTISAMPLED 0x50000u /* a 64 x 32 target at 2X2: 128 x 64 texels, block-linear, blocks 2 GOBs tall */
#define MULTISAMPLED_ZETA 0x58000u /* its Z24S8 depth target, laid out the same */
#define SET_ANTI_ALIAS 0x15D0u
#define SET_ANTI_ALIAS_ENABLE 0x1534u
#define SET_ANTI_ALIAS_SAMPLE_POSITIONS 0x11E0u
#define SET_SAMPLE_MASK_X0_Y0 0x0FBCu
#define SET_CLEAR_SURFACE_CONTROL 0x10F8u
#define SET_CLEAR_RECT_HORIZONTAL 0x0D6Cu
#define ANTI_ALIAS_2X2 2u
#define TWOD 3u /* the 2D engine's subchannel */
#define TWOD_SET_DST_FORMAT 0x0200u
#define TWOD_SET_SRC_FORMAT 0x0230u
#define TWOD_SET_OPERATION 0x02ACu
#define TWOD_SET_SAMPLE_MODE 0x088Cu
#define TWOD_SET_DST_X0 0x08B0u

/* 2X2's samples: positions in 1/16 pixel (Vulkan's standard ones, which deko3d programs), and the texel of the
 * pixel's 2 x 2 block each lies in (gpu/research/msaa.md: NIL's SampleLayout, envytools' surface tables). */
static const uint32_t sample_x[4] = {6, 14, 2, 10}, sample_y[4] = {2, 6, 10, 14};
static const uint32_t block_x[4] = {0, 1, 0, 1}, block_y[4] = {0, 0, 1, 1};

static void set_twod(uint32_t offset, uint32_t value) { method_on(TWOD, offset, 1, &value); }

static uint8_t *multisampled_texel(uint32_t i, uint32_t j) {
    return gpu.memory + MULTISAMPLED + block_linear_offset(4 * i, j, 4 * 2 * WIDTH, 1);
}

/* Whether the triangle covers the point (px, py) in 1/16 pixel; a point on an edge fails the test's premise. */
static int covers(const Vertex *t, int64_t px, int64_t py) {
    int64_t e0 = edge(&t[0], &t[1], px, py), e1 = edge(&t[1], &t[2], px, py), e2 = edge(&t[2], &t[0], px, py);
    check(e0 != 0 && e1 != 0 && e2 != 0, "no sample on an edge");
    return (e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0);
}

/* A background whose difference from the triangle's colour is a multiple of 4 in each channel, so that the
 * resolve's averages are exact. */
static const uint8_t multisampled_background[4] = {19, 105, 104, 255};

/* SET_ANTI_ALIAS `mode` (2X2 or 1X1) with multisample rasterisation, 2X2's positions and every sample enabled. */
static void multisampling(uint32_t mode) {
    set(SET_ANTI_ALIAS, mode);
    set(SET_ANTI_ALIAS_ENABLE, mode != 0);
    uint32_t positions[4], masks[4] = {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF};
    for (int w = 0; w < 4; w++) {
        positions[w] = 0;
        for (int b = 0; b < 4; b++) positions[w] |= (sample_x[b] | sample_y[b] << 4) << (8 * b);
    }
    method(SET_ANTI_ALIAS_SAMPLE_POSITIONS, 4, positions);
    method(SET_SAMPLE_MASK_X0_Y0, 4, masks);
}

/* Target 0 the pitch A8B8G8R8 one, as most cases draw. */
static void single_sampled_target(void) {
    block_linear_target(TARGET, 0, 0, 0, 0);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
}

/* The triangle drawn into the 2X2 multisampled target over its background, as deko3d sets multisampling up:
 * SET_ANTI_ALIAS 2X2 over a target whose WIDTH and HEIGHT count samples, the standard positions, every sample
 * enabled; then single-sampled again, target 0 the pitch one. */
static void draw_multisampled_triangle(uint32_t vertex_program, uint32_t pixel_program) {
    for (uint32_t j = 0; j < 2 * HEIGHT; j++)
        for (uint32_t i = 0; i < 2 * WIDTH; i++) memcpy(multisampled_texel(i, j), multisampled_background, 4);
    block_linear_target(MULTISAMPLED, 1u << 4, 1, 0, 0);
    uint32_t size[2] = {2 * WIDTH, 2 * HEIGHT};
    method(SET_COLOR_TARGET_A + 8, 2, size);
    multisampling(ANTI_ALIAS_2X2);
    put_vertices(triangle, 3);
    use_programs(vertex_program, pixel_program);
    draw_arrays(3, 0);
    multisampling(0);
    single_sampled_target();
    run("the triangle at 2X2");
}

/* PIXLD (samples.ps, samples86.ps) at 2X2: reading the sample index shades each sample on its own, and an
 * invocation that shades one sample covers that sample alone (OpenGL's gl_SampleMaskIn under per-sample shading):
 * sample s of each pixel the triangle covers takes (s, 1 << s, 0, 255), the others keep the background. */
static void per_sample_shading(uint32_t vertex_program, uint32_t pixel_program) {
    draw_multisampled_triangle(vertex_program, pixel_program);
    uint32_t wrong = 0, covered = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++)
            for (int s = 0; s < 4; s++) {
                int in = covers(triangle, 16 * (int64_t)x + sample_x[s], 16 * (int64_t)y + sample_y[s]);
                covered += (uint32_t)in;
                const uint8_t own[4] = {(uint8_t)s, (uint8_t)(1u << s), 0, 255};
                wrong += memcmp(multisampled_texel(2 * x + block_x[s], 2 * y + block_y[s]),
                                in ? own : multisampled_background, 4) != 0;
            }
    report_texels("sample s of each pixel holds (s, 1 << s, 0, 255) where the triangle covers it", wrong, covered);
}

/* After multisampled_target's depth test, its zeta target holding 0.25 over pixels (4, 2)-(12, 6), the
 * triangle's 0.75 where it covers elsewhere, 1.0 elsewhere: a triangle over most of the target at window depth
 * 0.9 drawn by covmask.ps (its coverage as green) under LESS with the early tests (SET_API_MANDATED_EARLY_Z),
 * which only samples holding 1.0 pass. Its program's coverage is the samples the triangle covers; with
 * SET_POST_Z_PS_IMASK, the samples that passed the tests (OpenGL's post_depth_coverage). */
static void post_depth_coverage(void) {
    /* One triangle over most of the target, inside the viewport (a clipped one, or two sharing an edge, would split
     * some pixels' coverage between primitives). */
    const Vertex cover[3] = {{3, 5, {F_0, F_0, F_0, F_1}}, {1021, 9, {F_0, F_0, F_0, F_1}}, {11, 507, {F_0, F_0, F_0, F_1}}};
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    copy_program(COVMASK_PS, covmask_ps, covmask_ps_end);
    use_programs(PASS_VS, COVMASK_PS);
    vertex_z = F_0_8; /* window depth 0.9 under -w..w */
    put_vertices(cover, 3);
    set(SET_ZT_SELECT, 1);
    set(SET_DEPTH_TEST, 1);
    set(SET_DEPTH_FUNC, OGL_LESS);
    set(SET_API_MANDATED_EARLY_Z, 1);
    for (uint32_t post = 0; post < 2; post++) {
        print(post ? "-- SET_POST_Z_PS_IMASK: the coverage a pixel program reads is the samples that passed\n"
                   : "-- the early depth test at 2X2: the coverage a pixel program reads is the primitive's\n");
        for (uint32_t j = 0; j < 2 * HEIGHT; j++)
            for (uint32_t i = 0; i < 2 * WIDTH; i++) memcpy(multisampled_texel(i, j), background, 4);
        set(SET_POST_Z_PS_IMASK, post);
        draw_arrays(3, 0);
        run("draw");
        uint32_t wrong = 0, passed = 0;
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++) {
                int held = x >= 4 && x < 12 && y >= 2 && y < 6, written[4];
                uint8_t covered = 0, survived = 0;
                for (int s = 0; s < 4; s++) {
                    int64_t sx = 16 * (int64_t)x + sample_x[s], sy = 16 * (int64_t)y + sample_y[s];
                    int in = covers(cover, sx, sy);
                    written[s] = in && !held && !covers(triangle, sx, sy);
                    covered |= (uint8_t)(in << s);
                    survived |= (uint8_t)(written[s] << s);
                }
                const uint8_t shaded[4] = {0, post ? survived : covered, 0, 255};
                for (int s = 0; s < 4; s++) {
                    passed += (uint32_t)written[s];
                    wrong += memcmp(multisampled_texel(2 * x + block_x[s], 2 * y + block_y[s]),
                                    written[s] ? shaded : background, 4) != 0;
                }
            }
        report_texels(post ? "each sample drawn holds (0, the mask of its pixel's samples drawn, 0, 255)"
                           : "each sample drawn holds (0, the mask of its pixel's samples covered, 0, 255)",
                      wrong, passed);
    }
    set(SET_POST_Z_PS_IMASK, 0);
    set(SET_API_MANDATED_EARLY_Z, 0);
    set(SET_DEPTH_TEST, 0);
    set(SET_ZT_SELECT, 0);
    vertex_z = 0x3F000000u;
    put_vertices(triangle, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    run("state back");
}

/* Multisampled rendering (BEHAVIOURS 1.19) as deko3d sets it up: SET_ANTI_ALIAS 2X2 over a target whose WIDTH and
 * HEIGHT count samples, the standard positions, every sample enabled. Each sample of each pixel takes the triangle's
 * colour exactly where the triangle covers its position, so pixels along the edges are partly covered; a clear
 * fills the pixels' blocks; and the 2D engine resolves the target as deko3d's Downsample does (DU_DX = 2,
 * SRC_X0 = 0.5, CENTER, BILINEAR): each pixel the average of its four samples. */
#define SET_ANTI_ALIAS_ALPHA_CONTROL 0x153Cu /* ALPHA_TO_COVERAGE 0:0, ALPHA_TO_ONE 4:4 */

/* SET_ANTI_ALIAS_ALPHA_CONTROL at 2X2, the triangle's alpha set to `alpha` (FP32 bits). ALPHA_TO_ONE alone: every
 * covered sample takes the colour with alpha 1 (255). ALPHA_TO_COVERAGE: alpha 1 covers every sample the
 * triangle covers and alpha 0 none (which samples a fraction covers is the host's pattern, not checked: Maxwell's
 * dither is documented nowhere); with both, every sample holds the background or the colour with alpha 1. */
static void alpha_to_coverage_and_one(void) {
    const struct {
        const char *what;
        uint32_t control, alpha;
        int expect; /* 1: every covered sample drawn, 0: none, -1: either, sample by sample */
    } cases[] = {
        {"ALPHA_TO_ONE, alpha 0.6: every covered sample with alpha 1", 0x10, F_0_6, 1},
        {"ALPHA_TO_COVERAGE, alpha 1: every covered sample", 0x1, F_1, 1},
        {"ALPHA_TO_COVERAGE, alpha 0: no sample", 0x1, 0, 0},
        {"both, alpha 0.6: the host's samples, each with alpha 1", 0x11, F_0_6, -1},
    };
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("", cases[k].what);
        for (uint32_t j = 0; j < 2 * HEIGHT; j++)
            for (uint32_t i = 0; i < 2 * WIDTH; i++) memcpy(multisampled_texel(i, j), multisampled_background, 4);
        Vertex faded[3];
        for (int v = 0; v < 3; v++) {
            faded[v] = triangle[v];
            faded[v].colour[3] = cases[k].alpha;
        }
        put_vertices(faded, 3);
        set(SET_ANTI_ALIAS_ALPHA_CONTROL, cases[k].control);
        draw_arrays(3, 0);
        set(SET_ANTI_ALIAS_ALPHA_CONTROL, 0);
        run("draw");
        uint32_t wrong = 0, covered = 0, drawn = 0;
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++)
                for (int s = 0; s < 4; s++) {
                    int in = covers(triangle, 16 * (int64_t)x + sample_x[s], 16 * (int64_t)y + sample_y[s]);
                    const uint8_t *texel = multisampled_texel(2 * x + block_x[s], 2 * y + block_y[s]);
                    int coloured = memcmp(texel, triangle_colour, 4) == 0;
                    covered += (uint32_t)in;
                    drawn += (uint32_t)coloured;
                    if (cases[k].expect >= 0 || !in)
                        wrong += memcmp(texel, in && cases[k].expect ? triangle_colour : multisampled_background, 4) != 0;
                    else
                        wrong += !coloured && memcmp(texel, multisampled_background, 4) != 0;
                }
        print("   samples drawn ");
        print_u64(drawn);
        print(" of ");
        print_u64(covered);
        print("\n");
        report_texels(cases[k].what, wrong, covered);
    }
    put_vertices(triangle, 3);
}

#define SET_PS_OUTPUT_SAMPLE_MASK_USAGE 0x0300u /* ENABLE 0:0, QUALIFY_BY_ANTI_ALIAS_ENABLE 1:1 */

/* A pixel program's sample mask output (mask.ps: 0x5) at 2X2: with SET_PS_OUTPUT_SAMPLE_MASK_USAGE's ENABLE the
 * triangle lands in samples 0 and 2 only; without it, the output is not read and every covered sample takes it.
 * SET_SAMPLE_MASK_X0_Y0 .. X1_Y1 of 0x1, 0x2, 0x4 and 0x8 let the pixel whose x and y parities make q (x & 1 +
 * 2 (y & 1)) write sample q alone, and with mask.ps's output too, only where q is 0 or 2. */
static void program_sample_mask(void) {
    const struct {
        const char *what;
        uint32_t usage, quad, program;
    } cases[] = {
        {"a pixel program's sample mask 0x5 (SET_PS_OUTPUT_SAMPLE_MASK_USAGE): samples 0 and 2 only", 1, 0, MASK_PS},
        {"the same without SET_PS_OUTPUT_SAMPLE_MASK_USAGE: every covered sample", 0, 0, MASK_PS},
        {"SET_SAMPLE_MASK 0x1, 0x2, 0x4, 0x8 over a quad: each pixel its own sample", 0, 1, PERSPECTIVE_PS},
        {"those and the program's 0x5: samples 0 and 2 of the pixels that own them", 1, 1, MASK_PS},
    };
    copy_program(MASK_PS, mask_ps, mask_ps_end);
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("", cases[k].what);
        for (uint32_t j = 0; j < 2 * HEIGHT; j++)
            for (uint32_t i = 0; i < 2 * WIDTH; i++) memcpy(multisampled_texel(i, j), multisampled_background, 4);
        uint32_t quad_masks[4] = {0x1, 0x2, 0x4, 0x8}, all_samples[4] = {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF};
        method(SET_SAMPLE_MASK_X0_Y0, 4, cases[k].quad ? quad_masks : all_samples);
        use_programs(PASS_VS, cases[k].program);
        set(SET_PS_OUTPUT_SAMPLE_MASK_USAGE, cases[k].usage);
        draw_arrays(3, 0);
        set(SET_PS_OUTPUT_SAMPLE_MASK_USAGE, 0);
        method(SET_SAMPLE_MASK_X0_Y0, 4, all_samples);
        run("draw");
        uint32_t wrong = 0, covered = 0;
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++)
                for (int s = 0; s < 4; s++) {
                    int allowed = (!cases[k].usage || s == 0 || s == 2) &&
                                  (!cases[k].quad || s == (int)((x & 1) + 2 * (y & 1)));
                    int in = allowed && covers(triangle, 16 * (int64_t)x + sample_x[s], 16 * (int64_t)y + sample_y[s]);
                    covered += (uint32_t)in;
                    const uint8_t *texel = multisampled_texel(2 * x + block_x[s], 2 * y + block_y[s]);
                    wrong += memcmp(texel, in ? triangle_colour : multisampled_background, 4) != 0;
                }
        report_texels(cases[k].what, wrong, covered);
    }
    use_programs(PASS_VS, PERSPECTIVE_PS);
}

static void multisampled_target(void) {
    print("-- a 2X2 multisampled target (128 x 64 samples): the triangle, sample by sample\n");
    const uint8_t *background = multisampled_background;
    draw_multisampled_triangle(PASS_VS, PERSPECTIVE_PS);
    uint32_t size[2] = {2 * WIDTH, 2 * HEIGHT};
    uint32_t wrong = 0, covered = 0, partial = 0;
    uint8_t coverage[HEIGHT][WIDTH];
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            coverage[y][x] = 0;
            for (int s = 0; s < 4; s++) {
                int in = covers(triangle, 16 * (int64_t)x + sample_x[s], 16 * (int64_t)y + sample_y[s]);
                coverage[y][x] += (uint8_t)in;
                covered += (uint32_t)in;
                const uint8_t *texel = multisampled_texel(2 * x + block_x[s], 2 * y + block_y[s]);
                wrong += memcmp(texel, in ? triangle_colour : background, 4) != 0;
            }
            partial += coverage[y][x] != 0 && coverage[y][x] != 4;
        }
    check(partial > 20, "pixels along the edges are partly covered");
    report_texels("each sample holds the colour where the triangle covers its position, else the background",
                  wrong, covered);

    print("-- PIXLD.MY_INDEX and COVMASK at 2X2: each covered sample takes its index and its own coverage bit\n");
    copy_program(SAMPLES_PS, samples_ps, samples_ps_end);
    per_sample_shading(PASS_VS, SAMPLES_PS);
    draw_multisampled_triangle(PASS_VS, PERSPECTIVE_PS);

    print("-- the 2D engine resolves it (DU_DX 2, SRC_X0 0.5, CENTER, BILINEAR) into the pitch target\n");
    fill_target(target_background);
    words[n++] = PB_NONINC(TWOD, SET_OBJECT, 1);
    words[n++] = 0x902D;
    set_twod(TWOD_SET_OPERATION, 3 /* SRCCOPY */);
    uint64_t source = gpu.gpu_address + MULTISAMPLED, destination = gpu.gpu_address + TARGET;
    /* FORMAT, MEMORY_LAYOUT, BLOCK_SIZE, DEPTH, LAYER, PITCH, WIDTH, HEIGHT, OFFSET_UPPER, OFFSET_LOWER */
    uint32_t source_surface[10] = {A8B8G8R8, 0, 1u << 4, 1, 0, 0, 2 * WIDTH, 2 * HEIGHT,
                                   (uint32_t)(source >> 32), (uint32_t)source};
    uint32_t destination_surface[10] = {A8B8G8R8, 1, 0, 1, 0, 4 * WIDTH, WIDTH, HEIGHT,
                                        (uint32_t)(destination >> 32), (uint32_t)destination};
    method_on(TWOD, TWOD_SET_SRC_FORMAT, 10, source_surface);
    method_on(TWOD, TWOD_SET_DST_FORMAT, 10, destination_surface);
    set_twod(TWOD_SET_SAMPLE_MODE, 1u << 4 /* ORIGIN CENTER, FILTER BILINEAR */);
    /* DST_X0, DST_Y0, DST_WIDTH, DST_HEIGHT, then DU_DX, DV_DY, SRC_X0, SRC_Y0 as (FRAC, INT); SRC_Y0_INT last. */
    uint32_t resolve[12] = {0, 0, WIDTH, HEIGHT, 0, 2, 0, 2, 0x80000000u, 0, 0x80000000u, 0};
    method_on(TWOD, TWOD_SET_DST_X0, 12, resolve);
    run("resolve");
    wrong = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            uint8_t want[4];
            for (int c = 0; c < 4; c++)
                want[c] = (uint8_t)(background[c] + coverage[y][x] * (triangle_colour[c] - background[c]) / 4);
            wrong += memcmp(gpu.memory + TARGET + 256 * y + 4 * x, want, 4) != 0;
        }
    report("each pixel the average of its samples", wrong, WIDTH * HEIGHT);

    print("-- a clear of pixels (4, 2)-(12, 6) of the multisampled target fills their 2 x 2 blocks\n");
    block_linear_target(MULTISAMPLED, 1u << 4, 1, 0, 0);
    method(SET_COLOR_TARGET_A + 8, 2, size);
    multisampling(ANTI_ALIAS_2X2);
    uint32_t rect[2] = {4 | 12u << 16, 2 | 6u << 16}, white[4] = {F_1, F_1, F_1, F_1};
    method(SET_CLEAR_RECT_HORIZONTAL, 2, rect);
    set(SET_CLEAR_SURFACE_CONTROL, 1u << 4 /* USE_CLEAR_RECT */);
    method(SET_COLOR_CLEAR_VALUE, 4, white);
    set(CLEAR_SURFACE, 0x3C);
    set(SET_CLEAR_SURFACE_CONTROL, 0);
    run("clear");
    wrong = 0;
    const uint8_t all_ones[4] = {255, 255, 255, 255};
    for (uint32_t j = 0; j < 2 * HEIGHT; j++)
        for (uint32_t i = 0; i < 2 * WIDTH; i++) {
            uint32_t x = i / 2, y = j / 2;
            if (x >= 4 && x < 12 && y >= 2 && y < 6) {
                wrong += memcmp(multisampled_texel(i, j), all_ones, 4) != 0;
            } else {
                /* Untouched: the draw's sample there. */
                int s = (int)(i % 2 + 2 * (j % 2));
                int in = covers(triangle, 16 * (int64_t)x + sample_x[s], 16 * (int64_t)y + sample_y[s]);
                wrong += memcmp(multisampled_texel(i, j), in ? triangle_colour : background, 4) != 0;
            }
        }
    report_texels("the 8 x 4 pixels' 16 x 8 texels are white, every other texel as drawn", wrong, 4 * WIDTH * HEIGHT);

    print("-- a 2X2 multisampled Z24S8 target: depth 1.0, 0.25 over pixels (4, 2)-(12, 6), the triangle at 0.75 "
          "under LESS\n");
    for (uint32_t j = 0; j < 2 * HEIGHT; j++)
        for (uint32_t i = 0; i < 2 * WIDTH; i++) memcpy(multisampled_texel(i, j), background, 4);
    set_address(SET_ZT_A, MULTISAMPLED_ZETA);
    uint32_t zeta[3] = {Z24S8, 1u << 4 /* blocks two GOBs tall */, 0}, zeta_size[3] = {2 * WIDTH, 2 * HEIGHT, 1};
    method(SET_ZT_A + 8, 3, zeta);
    method(SET_ZT_SIZE_A, 3, zeta_size);
    set(SET_ZT_SELECT, 1);
    set(SET_Z_CLEAR_VALUE, F_1);
    set(SET_STENCIL_CLEAR_VALUE, 0);
    set(CLEAR_SURFACE, 3);
    set(SET_Z_CLEAR_VALUE, 0x3E800000u /* 0.25 */);
    set(SET_CLEAR_SURFACE_CONTROL, 1u << 4 /* USE_CLEAR_RECT */);
    set(CLEAR_SURFACE, 1);
    set(SET_CLEAR_SURFACE_CONTROL, 0);
    set(SET_DEPTH_TEST, 1);
    set(SET_DEPTH_WRITE, 1);
    set(SET_DEPTH_FUNC, OGL_LESS);
    set(SET_ZPASS_PIXEL_COUNT, 1);
    set(CLEAR_REPORT_VALUE, 0x01);
    vertex_z = 0x3F000000u; /* window depth 0.75 */
    draw_arrays(3, 0);
    report_counter(REPORT_ZPASS_PIXEL_CNT64, 0);
    set(SET_ZPASS_PIXEL_COUNT, 0);
    set(SET_DEPTH_TEST, 0);
    set(SET_DEPTH_WRITE, 0);
    set(SET_ZT_SELECT, 0);
    run("clears and draw");
    wrong = 0;
    uint64_t passed = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++)
            for (int s = 0; s < 4; s++) {
                int in = covers(triangle, 16 * (int64_t)x + sample_x[s], 16 * (int64_t)y + sample_y[s]);
                int held = x >= 4 && x < 12 && y >= 2 && y < 6;
                uint32_t i = 2 * x + block_x[s], j = 2 * y + block_y[s], texel;
                memcpy(&texel, gpu.memory + MULTISAMPLED_ZETA + block_linear_offset(4 * i, j, 4 * 2 * WIDTH, 1), 4);
                /* D24: 0.25 and 0.75 of 2^24 - 1, rounded to nearest (neither is a tie). */
                uint32_t depth = held ? 4194304u : in ? 12582911u : 0xFFFFFFu;
                passed += (uint64_t)(in && !held);
                wrong += texel != depth << 8;
                wrong += memcmp(multisampled_texel(i, j), in && !held ? triangle_colour : background, 4) != 0;
            }
    check(reported(0) == passed, "ZPASS_PIXEL_CNT64 counts the samples that passed");
    report_texels("each sample's depth and colour: the clears', or the triangle's where it covers and is nearer",
                  wrong, 4 * WIDTH * HEIGHT);
    post_depth_coverage();

    print("-- SET_SAMPLE_MASK 0x5 (every pixel of the quad): the triangle into samples 0 and 2 only\n");
    for (uint32_t j = 0; j < 2 * HEIGHT; j++)
        for (uint32_t i = 0; i < 2 * WIDTH; i++) memcpy(multisampled_texel(i, j), background, 4);
    uint32_t masks[4] = {0x5, 0x5, 0x5, 0x5};
    method(SET_SAMPLE_MASK_X0_Y0, 4, masks);
    draw_arrays(3, 0);
    run("draw");
    wrong = 0;
    covered = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++)
            for (int s = 0; s < 4; s++) {
                int in = (s == 0 || s == 2) &&
                         covers(triangle, 16 * (int64_t)x + sample_x[s], 16 * (int64_t)y + sample_y[s]);
                covered += (uint32_t)in;
                const uint8_t *texel = multisampled_texel(2 * x + block_x[s], 2 * y + block_y[s]);
                wrong += memcmp(texel, in ? triangle_colour : background, 4) != 0;
            }
    report_texels("samples 0 and 2 hold the colour where the triangle covers them; samples 1 and 3 the background",
                  wrong, covered);
    uint32_t all_samples[4] = {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF};
    method(SET_SAMPLE_MASK_X0_Y0, 4, all_samples);
    alpha_to_coverage_and_one();
    program_sample_mask();

    multisampling(0);
    single_sampled_target();
    run("single-sampled again");
}

/* A triangle at NDC z 1.5 (window z 1.25, past the far plane) under a depth test that always passes and writes. */
static void depth_clamp(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    set(SET_ZT_SELECT, 1);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    set(SET_DEPTH_TEST, 1);
    set(SET_DEPTH_WRITE, 1);
    set(SET_DEPTH_FUNC, OGL_ALWAYS);
    vertex_z = 0x3FC00000u; /* 1.5 */
    put_vertices(triangle, 3);
    for (int clamp = 0; clamp < 2; clamp++) {
        print(clamp ? "-- depth clamp: the triangle past the far plane drawn at depth 1.0\n"
                    : "-- depth clip: the triangle past the far plane clipped away\n");
        fill_target(background);
        set(SET_Z_CLEAR_VALUE, F_0);
        set(CLEAR_SURFACE, 3);
        set(SET_VIEWPORT_CLIP_CONTROL, clamp ? CLIP_CONTROL_Z_CLAMPED : CLIP_CONTROL_Z_CLIPPED);
        draw_arrays(3, 0);
        run("draw");
        uint32_t count, wrong_depth = 0;
        const uint8_t colour[4] = {51, 153, 204, 255};
        uint32_t wrong = clamp ? wrong_pixels(in_triangle, colour, background, &count)
                               : wrong_pixels(in_triangle, background, background, &count);
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++)
                wrong_depth += zeta_texel(x, y) != (clamp && in_triangle(x, y) ? 0xFFFFFF00u : 0u);
        report(clamp ? "the triangle's pixels drawn, nothing else" : "no pixel drawn", wrong, count);
        check(wrong_depth == 0, clamp ? "depth 1.0 where the triangle covers, the clear's 0 elsewhere"
                                      : "the clear's depth 0 everywhere");
    }
    /* The state the depth and stencil cases left, which the next cases build on. */
    vertex_z = 0x3F000000u;
    set(SET_VIEWPORT_CLIP_CONTROL, CLIP_CONTROL_Z_CLIPPED);
    set(SET_Z_CLEAR_VALUE, F_1);
    set(SET_DEPTH_FUNC, OGL_LESS);
    set(SET_DEPTH_TEST, 0);
    set(SET_ZT_SELECT, 0);
    run("state back");
}

/* SET_VIEWPORT_Z_CLIP NEGATIVE_W_TO_POSITIVE_W: the viewport maps NDC z from [-1, 1], so z -0.5 and 0.5 land at
 * depth 0.25 and 0.75 (scale and offset 0.5): D24 0.25 x (2^24 - 1) = 4194303.75 -> 0x400000 and 12582911.25 ->
 * 0xBFFFFF. Then the same position from two programs gives the same depth: the triangle drawn by pass.vs under
 * LESS, then by offset.vs (adding a zero offset) under EQUAL, passes at every pixel it covers. */
static void depth_range_and_invariance(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    set(SET_ZT_SELECT, 1);
    set(SET_DEPTH_TEST, 1);
    set(SET_DEPTH_WRITE, 1);
    set(SET_DEPTH_FUNC, OGL_ALWAYS);
    set(SET_VIEWPORT_Z_CLIP, 0);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    const uint32_t zs[2] = {0xBF000000u /* -0.5 */, 0x3F000000u /* 0.5 */}, depths[2] = {0x400000u, 0xBFFFFFu};
    for (int k = 0; k < 2; k++) {
        print(k ? "-- depth mode -w..w: NDC z 0.5 at depth 0.75 (D24 0xBFFFFF)\n"
                : "-- depth mode -w..w: NDC z -0.5 at depth 0.25 (D24 0x400000)\n");
        fill_target(background);
        set(SET_Z_CLEAR_VALUE, F_1);
        set(CLEAR_SURFACE, 3);
        vertex_z = zs[k];
        put_vertices(triangle, 3);
        draw_arrays(3, 0);
        run("draw");
        uint32_t wrong = 0, count = 0;
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++) {
                count += (uint32_t)in_triangle(x, y);
                wrong += zeta_texel(x, y) != (in_triangle(x, y) ? depths[k] << 8 : 0xFFFFFF00u);
            }
        report(k ? "the triangle's texels hold 0xBFFFFF, the rest the clear's 0xFFFFFF"
                 : "the triangle's texels hold 0x400000, the rest the clear's 0xFFFFFF",
               wrong, count);
    }
    set(SET_VIEWPORT_Z_CLIP, 1);

    print("-- one position from two programs: EQUAL passes wherever the first drew\n");
    fill_target(background);
    set(CLEAR_SURFACE, 3);
    set(SET_DEPTH_FUNC, OGL_LESS);
    vertex_z = 0x3E99999Au; /* 0.3 */
    put_vertices(triangle, 3);
    draw_arrays(3, 0);
    run("draw");
    Vertex recoloured[3] = {triangle[0], triangle[1], triangle[2]};
    const uint32_t other[4] = {F_0_6, F_0_8, F_0_2, F_1};
    for (int i = 0; i < 3; i++) memcpy(recoloured[i].colour, other, 16);
    put_vertices(recoloured, 3);
    uint32_t *offsets = (uint32_t *)(gpu.memory + INSTANCES);
    for (int i = 0; i < 6; i++) offsets[i] = F_0;
    set(SET_VERTEX_ATTRIBUTE_A + 8, 1 | FLOAT_R32_G32); /* generic 2: a zero offset from stream 1 */
    stream(1, INSTANCES, 8, 24);
    set(SET_DEPTH_FUNC, OGL_EQUAL);
    set(SET_DEPTH_WRITE, 0);
    use_programs(OFFSET_VS, PERSPECTIVE_PS);
    draw_arrays(3, 0);
    run("draw");
    const uint8_t second[4] = {153, 204, 51, 255};
    uint32_t count, wrong = wrong_pixels(in_triangle, second, background, &count);
    report("every covered pixel takes the second draw's (153, 204, 51, 255)", wrong, count);

    vertex_z = 0x3F000000u;
    set(SET_DEPTH_WRITE, 1);
    set(SET_DEPTH_FUNC, OGL_LESS);
    set(SET_DEPTH_TEST, 0);
    set(SET_ZT_SELECT, 0);
    run("state back");
}

static void depth_and_stencil(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    set_address(SET_COLOR_TARGET_A, TARGET);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    set_address(SET_ZT_A, ZETA);
    uint32_t zeta[4] = {Z24S8, 1u << 4 /* blocks two GOBs tall */, 0};
    method(SET_ZT_A + 8, 3, zeta);
    uint32_t zeta_size[3] = {WIDTH, HEIGHT, 1};
    method(SET_ZT_SIZE_A, 3, zeta_size);
    set(SET_ZT_SELECT, 1);
    use_programs(PASS_VS, PERSPECTIVE_PS);

    print("-- the depth test: LESS, the nearest primitive's colour wherever several cover\n");
    fill_target(background);
    set(SET_Z_CLEAR_VALUE, F_1);
    set(SET_STENCIL_CLEAR_VALUE, 0);
    set(CLEAR_SURFACE, 3); /* depth and stencil */
    set(SET_DEPTH_TEST, 1);
    set(SET_DEPTH_WRITE, 1);
    set(SET_DEPTH_FUNC, OGL_LESS);
    set(SET_ZPASS_PIXEL_COUNT, 1);
    set(SET_STATISTICS_COUNTER, 3); /* vertices and primitives generated */
    set(CLEAR_REPORT_VALUE, 0x01);
    set(CLEAR_REPORT_VALUE, 0x12);
    set(CLEAR_REPORT_VALUE, 0x13);
    counting = 3;
    count_statistic(VS_INVOCATIONS);
    count_statistic(CLIPPER_INVOCATIONS);
    count_statistic(CLIPPER_PRIMITIVES_GENERATED);
    count_statistic(PS_INVOCATIONS);
    count_statistic(VTG_PRIMITIVES_OUT);
    run("clear and state");
    vertex_z = 0x3F000000u; /* 0.5 */
    draw_indexed_rectangle();
    run("draw");
    vertex_z = 0x3E800000u; /* 0.25 */
    put_vertices(triangle, 3);
    draw_arrays(3, 0);
    run("draw");
    vertex_z = 0x3F400000u; /* 0.75 */
    put_vertices(small, 3);
    draw_arrays(3, 0);
    report_counter(REPORT_ZPASS_PIXEL_CNT64, 0);
    report_counter(REPORT_DA_VERTICES_GENERATED, 1);
    report_counter(REPORT_DA_PRIMITIVES_GENERATED, 2);
    report_statistic(3, VS_INVOCATIONS);
    report_statistic(4, CLIPPER_INVOCATIONS);
    report_statistic(5, CLIPPER_PRIMITIVES_GENERATED);
    report_statistic(6, PS_INVOCATIONS);
    report_statistic(7, VTG_PRIMITIVES_OUT);
    set(SET_ZPASS_PIXEL_COUNT, 0);
    stop_counting();
    run("draw");
    uint32_t wrong = 0, untouched = 0, kept = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            uint8_t want[4];
            expected_by_depth(x, y, want);
            wrong += memcmp(gpu.memory + TARGET + 256 * y + 4 * x, want, 4) != 0;
            if (!in_triangle(x, y) && !in_rectangle(x, y) && !in_small(x, y)) {
                untouched++;
                kept += zeta_texel(x, y) == 0xFFFFFF00u;
            }
        }
    report("each pixel the nearest covering primitive's colour", wrong, WIDTH * HEIGHT);
    /* Samples that passed: all of the rectangle's and the triangle's (each nearer than what it covered), the
     * small triangle's where neither covers. */
    uint64_t passed = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++)
            passed += (uint64_t)in_rectangle(x, y) + (uint64_t)in_triangle(x, y) +
                      (uint64_t)(in_small(x, y) && !in_rectangle(x, y) && !in_triangle(x, y));
    check(reported(0) == passed, "ZPASS_PIXEL_CNT64: the samples that passed the depth test");
    check(reported(1) == 12 && reported(2) == 4, "DA_VERTICES_GENERATED 12 (6 + 3 + 3), DA_PRIMITIVES_GENERATED 4");
    print("   samples passed ");
    print_u64(reported(0));
    print(" of ");
    print_u64(passed);
    print(", vertices ");
    print_u64(reported(1));
    print(", primitives ");
    print_u64(reported(2));
    print("\n");
    /* Vulkan's bounds: each of the 10 distinct vertices shaded at least once, at most once per index; each of the
     * 4 primitives, all inside the view, reaches the clipper and leaves it whole; the pixel program runs for
     * every sample that passed the depth test, and at most for the 2x2 quads each primitive touches (the
     * rectangle's two halves each in at most all of its quads). */
    uint64_t most_pixels = 4 * (2 * quads(in_rectangle) + quads(in_triangle) + quads(in_small));
    check(reported(3) >= 10 && reported(3) <= 12, "VS_INVOCATIONS: each vertex at least once, at most once per index");
    check(reported(4) == 4 && reported(5) >= 4, "CLIPPER_INVOCATIONS 4, CLIPPER_PRIMITIVES_GENERATED 4 or more");
    check(reported(7) == 4, "VTG_PRIMITIVES_OUT 4");
    check(reported(6) >= passed && reported(6) <= most_pixels,
          "PS_INVOCATIONS: every sample that passed, at most the primitives' quads");
    /* How many within the bounds is the device's choice: left out of the state, which is the same on every device. */
    memset(gpu.memory + REPORTS + 16 * 3, 0, 16 * 4);
    check(untouched > 50 && kept == untouched, "uncovered texels keep the clear's depth (1.0) and stencil (0)");

    print("-- the stencil test: REPLACE where the small triangle covers, then EQUAL draws only there\n");
    fill_target(background);
    set(CLEAR_SURFACE, 3);
    set(SET_DEPTH_TEST, 0);
    set(SET_STENCIL_TEST, 1);
    uint32_t write_reference[7] = {OGL_KEEP, OGL_KEEP, OGL_REPLACE, OGL_ALWAYS, 5, 0xFF, 0xFF};
    method(SET_STENCIL_OP_FAIL, 7, write_reference); /* FAIL, ZFAIL, ZPASS, FUNC, REF, FUNC_MASK, MASK */
    set(SET_CT_WRITE, 0);
    vertex_z = 0x3F000000u;
    put_vertices(small, 3);
    draw_arrays(3, 0);
    run("draw"); /* the vertices are in memory the next draw's replace */
    set(SET_CT_WRITE, 0x1111);
    uint32_t test_reference[7] = {OGL_KEEP, OGL_KEEP, OGL_KEEP, OGL_EQUAL, 5, 0xFF, 0xFF};
    method(SET_STENCIL_OP_FAIL, 7, test_reference);
    draw_indexed_rectangle();
    set(SET_STENCIL_TEST, 0);
    set(SET_ZT_SELECT, 0);
    run("draws");
    uint32_t count = 0, stencil_wrong = 0;
    wrong = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            int both = in_small(x, y) && in_rectangle(x, y);
            count += (uint32_t)both;
            wrong += memcmp(gpu.memory + TARGET + 256 * y + 4 * x, both ? colour_a : background, 4) != 0;
            stencil_wrong += zeta_texel(x, y) != (in_small(x, y) ? 0xFFFFFF05u : 0xFFFFFF00u);
        }
    report("the rectangle's colour where the stencil holds 5, the background elsewhere", wrong, count);
    check(stencil_wrong == 0, "stencil 5 where the small triangle covers, 0 elsewhere, depth kept");

    /* The triangle drawn by kill.ps, which kills the pixels right of x = 32, under LESS with depth writes: with the
     * tests after the pixel program the killed pixels keep the clear's depth; with them before it
     * (SET_API_MANDATED_EARLY_Z, GLSL's early_fragment_tests) the whole triangle's depth is written, the colour
     * left of x = 32 only, as Vulkan's and OpenGL's early fragment tests have it. */
    copy_program(KILL_PS, kill_ps, kill_ps_end);
    use_programs(PASS_VS, KILL_PS);
    set(SET_ZT_SELECT, 1);
    vertex_z = 0x3E800000u; /* 0.25 */
    put_vertices(triangle, 3);
    for (uint32_t early = 0; early < 2; early++) {
        print(early ? "-- SET_API_MANDATED_EARLY_Z: the killed pixels' depth written all the same\n"
                    : "-- depth tested after a program that kills: the killed pixels keep the clear's depth\n");
        fill_target(background);
        set(CLEAR_SURFACE, 3);
        set(SET_DEPTH_TEST, 1);
        set(SET_DEPTH_WRITE, 1);
        set(SET_DEPTH_FUNC, OGL_LESS);
        set(SET_API_MANDATED_EARLY_Z, early);
        draw_arrays(3, 0);
        set(SET_API_MANDATED_EARLY_Z, 0);
        set(SET_DEPTH_TEST, 0);
        run("draw");
        uint32_t drawn = 0, colour_wrong = 0, depth_wrong = 0;
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++) {
                int shaded = in_triangle(x, y) && x < 32, tested = in_triangle(x, y) && (x < 32 || early);
                drawn += (uint32_t)shaded;
                colour_wrong += memcmp(gpu.memory + TARGET + 256 * y + 4 * x, shaded ? colour_b : background, 4) != 0;
                uint32_t depth = zeta_texel(x, y) >> 8;
                depth_wrong += tested ? depth >= 0xFFFFFFu : depth != 0xFFFFFFu;
            }
        report("the triangle's colour left of x = 32, the background elsewhere", colour_wrong, drawn);
        check(depth_wrong == 0, early ? "the triangle's depth over the whole triangle, the clear's elsewhere"
                                      : "the triangle's depth where the program lived on, the clear's elsewhere");
    }
    set(SET_ZT_SELECT, 0);
    run("state back");
}

/* ---- Polygon offset and the depth bounds test ------------------------------------------------------------ */

/* The depth of each texel of the zeta target a draw without polygon offset left. */
static uint32_t depths_before[WIDTH * HEIGHT];

/* Draws the rectangle from z `left` to `right` under ALWAYS in polygon mode `mode`, once without polygon offset
 * and once with the offset registers given and `enable` (SET_POLY_OFFSET_FILL, _LINE or _POINT) on, and counts
 * the texels drawn whose depth moved by other than `steps` (D24 steps; within `slack`). Depths are chosen off the
 * half steps, so that an offset of whole steps rounds one way. */
static uint32_t offset_misses_in(uint32_t mode, uint32_t enable, uint32_t left, uint32_t right, uint32_t units,
                                 uint32_t slope, uint32_t clamp, uint32_t steps, uint32_t slack) {
    set(SET_FRONT_POLYGON_MODE, mode);
    set(SET_BACK_POLYGON_MODE, mode);
    set(SET_POLY_OFFSET_LINE, 0);
    set(SET_POLY_OFFSET_FILL, 0);
    set(CLEAR_SURFACE, 3);
    draw_indexed_rectangle_sloped(left, right);
    run("draw");
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) depths_before[WIDTH * y + x] = zeta_texel(x, y) >> 8;
    set(CLEAR_SURFACE, 3);
    set(enable, 1);
    set(SET_DEPTH_BIAS, units);
    set(SET_SLOPE_SCALE_DEPTH_BIAS, slope);
    set(SET_DEPTH_BIAS_CLAMP, clamp);
    draw_indexed_rectangle_sloped(left, right);
    set(enable, 0);
    set(SET_FRONT_POLYGON_MODE, POLYGON_FILL);
    set(SET_BACK_POLYGON_MODE, POLYGON_FILL);
    run("draw");
    uint32_t misses = 0, covered = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            /* Drawn: the clear's 1.0 (0xFFFFFF) replaced. */
            if (depths_before[WIDTH * y + x] == 0xFFFFFFu) continue;
            covered++;
            int64_t moved = (int64_t)(zeta_texel(x, y) >> 8) - (int64_t)depths_before[WIDTH * y + x];
            misses += moved < (int64_t)steps - (int64_t)slack || moved > (int64_t)steps + (int64_t)slack;
        }
    check(covered > 50, "the rectangle covers pixels");
    return misses;
}

static uint32_t offset_misses(uint32_t left, uint32_t right, uint32_t units, uint32_t slope, uint32_t clamp,
                              uint32_t steps, uint32_t slack) {
    return offset_misses_in(POLYGON_FILL, SET_POLY_OFFSET_FILL, left, right, units, slope, clamp, steps, slack);
}

static void report_misses(const char *what, uint32_t misses) {
    check(misses == 0, what);
    print("   texels off ");
    print_u64(misses);
    print("\n");
}

/* Where the depth bounds test lets the triangle (colour B) through onto the rectangle at window depth 0.5 (A)
 * over a clear of 1.0: inside the rectangle when the bounds hold 0.5 (`inner`), outside it otherwise. */
static int bounds_inner;
static void expected_by_bounds(uint32_t x, uint32_t y, uint8_t out[4]) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    int in_bounds = in_rectangle(x, y) == bounds_inner;
    memcpy(out, in_triangle(x, y) && in_bounds ? colour_b : in_rectangle(x, y) ? colour_a : background, 4);
}

static void polygon_offset_and_depth_bounds(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    set(SET_ZT_SELECT, 1);
    set(SET_DEPTH_TEST, 1);
    set(SET_DEPTH_WRITE, 1);
    set(SET_DEPTH_FUNC, OGL_ALWAYS);
    /* SET_DEPTH_BIAS counts steps of the format, twice the API's units (behaviour 5.5): 32.0 is 32 steps of
     * D24. Window depth 0.75 (z 0.5) is 12582911.25 steps. */
    print("-- polygon offset: SET_DEPTH_BIAS 32.0 moves a flat rectangle's depth by 32 steps of D24\n");
    report_misses("each texel 32 steps further", offset_misses(0x3F000000u, 0x3F000000u, 0x42000000u, 0, 0, 32, 0));
    /* Window depth from 0.5 to 0.75 over the rectangle's 535/16 pixels: a slope of 4/535 a pixel; a factor of
     * 1/64 moves depth by 1/8560, 1959.95 steps. */
    print("-- polygon offset: a slope factor of 1/64 on a rectangle sloped 4/535 a pixel moves it by 1960 steps\n");
    report_misses("each texel 1960 steps further, give or take 2",
                  offset_misses(0x00000000u, 0x3F000000u, 0, 0x3C800000u, 0, 1960, 2));
    print("-- polygon offset: 1000 units clamped to 10 steps (5.96e-7)\n");
    report_misses("each texel 10 steps further",
                  offset_misses(0x3F000000u, 0x3F000000u, 0x44FA0000u, 0, 0x35200000u, 10, 0));
    /* In the line polygon mode SET_POLY_OFFSET_LINE turns it on, and SET_POLY_OFFSET_FILL does not. */
    print("-- polygon offset of the rectangle's triangles drawn as lines: SET_POLY_OFFSET_LINE moves their edges 32 "
          "steps, SET_POLY_OFFSET_FILL none\n");
    report_misses("each edge texel 32 steps further", offset_misses_in(POLYGON_LINE, SET_POLY_OFFSET_LINE, 0x3F000000u,
                                                                      0x3F000000u, 0x42000000u, 0, 0, 32, 0));
    report_misses("each edge texel where it was", offset_misses_in(POLYGON_LINE, SET_POLY_OFFSET_FILL, 0x3F000000u,
                                                                  0x3F000000u, 0x42000000u, 0, 0, 0, 0));

    uint32_t bounds[2][2] = {{0x3E800000u, 0x3F200000u} /* 0.25..0.625 */, {0x3F19999Au, F_1} /* 0.6..1 */};
    for (int inner = 1; inner >= 0; inner--) {
        print(inner ? "-- the depth bounds test, 0.25 to 0.625: the triangle draws only over the rectangle (0.5)\n"
                    : "-- the depth bounds test, 0.6 to 1: the triangle draws only off the rectangle (cleared 1.0)\n");
        fill_target(background);
        set(CLEAR_SURFACE, 3);
        set(SET_DEPTH_TEST, 1);
        vertex_z = 0x00000000u; /* window depth 0.5 */
        draw_indexed_rectangle();
        run("draw"); /* the vertices are in memory the next draw's replace */
        set(SET_DEPTH_TEST, 0);
        method(SET_DEPTH_BOUNDS_MIN, 2, bounds[1 - inner]);
        set(SET_DEPTH_BOUNDS_TEST, 1);
        vertex_z = 0x3F000000u;
        put_vertices(triangle, 3);
        draw_arrays(3, 0);
        set(SET_DEPTH_BOUNDS_TEST, 0);
        run("draws");
        bounds_inner = inner;
        uint32_t wrong = 0, depth_kept = 1;
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++) {
                uint8_t want[4];
                expected_by_bounds(x, y, want);
                wrong += memcmp(gpu.memory + TARGET + 256 * y + 4 * x, want, 4) != 0;
                depth_kept &= in_rectangle(x, y) || zeta_texel(x, y) == 0xFFFFFF00u;
            }
        report(inner ? "B over the rectangle inside the triangle, A elsewhere on it, the background off it"
                     : "B off the rectangle inside the triangle, A on it, the background elsewhere",
               wrong, WIDTH * HEIGHT);
        check(depth_kept, "the bounds test writes no depth: off the rectangle the clear's 1.0 stays");
    }
    set(SET_ZT_SELECT, 0);
}

/* ---- The alpha test --------------------------------------------------------------------------------------- */

/* The triangle at alpha 0.8 and then the small triangle at alpha 0.2, under the alpha test `function` 0.5: with
 * GREATER only the triangle draws, with LESS only the small one. */
static void alpha_test(void) {
    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    const uint32_t functions[2] = {OGL_GREATER, OGL_LESS};
    use_programs(PASS_VS, PERSPECTIVE_PS);
    for (int k = 0; k < 2; k++) {
        print(k == 0 ? "-- the alpha test, GREATER 0.5: a triangle of alpha 0.8 draws, one of alpha 0.2 does not\n"
                     : "-- the alpha test, LESS 0.5: a triangle of alpha 0.2 draws, one of alpha 0.8 does not\n");
        fill_target(background);
        set(SET_ALPHA_TEST, 1);
        set(SET_ALPHA_REF, 0x3F000000u);
        set(SET_ALPHA_FUNC, functions[k]);
        Vertex opaque[3], faint[3];
        for (int i = 0; i < 3; i++) {
            opaque[i] = triangle[i];
            opaque[i].colour[3] = F_0_8;
            faint[i] = small[i];
            faint[i].colour[3] = F_0_2;
        }
        put_vertices(opaque, 3);
        draw_arrays(3, 0);
        run("draw"); /* the vertices are in memory the next draw's replace */
        put_vertices(faint, 3);
        draw_arrays(3, 0);
        set(SET_ALPHA_TEST, 0);
        run("draw");
        const uint8_t triangle_colour[4] = {51, 153, 204, 204}, small_colour[4] = {204, 51, 153, 51};
        uint32_t count, wrong;
        if (k == 0) {
            wrong = wrong_pixels(in_triangle, triangle_colour, background, &count);
            report("the alpha 0.8 triangle's pixels, the background elsewhere", wrong, count);
        } else {
            wrong = wrong_pixels(in_small, small_colour, background, &count);
            report("the alpha 0.2 triangle's pixels, the background elsewhere", wrong, count);
        }
    }
}

/* ---- Textures ------------------------------------------------------------------------------------------- */

/* Texture header `index` of the pool (`write_texture_header`), its texels at `at` in the channel's memory. */
static void put_header(uint32_t index, uint32_t components, const uint32_t swizzle[4], uint32_t version, uint32_t at,
                       uint32_t layout, uint32_t levels, uint32_t width, uint32_t height, uint32_t type) {
    write_texture_header((uint32_t *)(gpu.memory + TICS + 32 * index), gpu.gpu_address + at, components, swizzle,
                         version, layout, levels, width, height, type);
}

/* Sampler `index` of the pool (`write_sampler`). */
static void put_sampler(uint32_t index, uint32_t u, uint32_t mip, const uint32_t border[4]) {
    write_sampler((uint32_t *)(gpu.memory + TSCS + 32 * index), u, mip, border);
}

/* The texels of the 8 x 4 patterns, each unlike its neighbours in every channel. */
static void rgba8_texel(uint32_t i, uint32_t j, uint8_t out[4]) {
    out[0] = (uint8_t)(17 * i + 3);
    out[1] = (uint8_t)(40 * j + 20);
    out[2] = (uint8_t)(i * j * 9 + 5);
    out[3] = (uint8_t)(255 - 16 * i - j);
}
static uint16_t b5g6r5_texel(uint32_t i, uint32_t j) {
    return (uint16_t)(((i * 4 + j) & 31) | ((i * 8 + j * 3) & 63) << 5 | (31 - i * 3) << 11);
}

/* `what` (x, y): and the float target's four words there, `got`. */
static void print_float_pixel(const char *what, uint32_t x, uint32_t y, const uint32_t got[4]) {
    print(what);
    print(" (");
    print_u64(x);
    print(", ");
    print_u64(y);
    print("):");
    for (int c = 0; c < 4; c++) {
        print(" ");
        print_hex(got[c]);
    }
}

/* Counts the pixels of the float target whose four words are not what `expected` gives for them. */
static uint32_t wrong_float_pixels_within(void (*expected)(uint32_t x, uint32_t y, uint32_t out[4]), uint32_t ulps) {
    uint32_t wrong = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            uint32_t want[4], got[4];
            expected(x, y, want);
            memcpy(got, gpu.memory + FLOAT_TARGET + 1024 * y + 16 * x, 16);
            int close = 1;
            for (int c = 0; c < 4; c++) {
                /* Floats of one sign are ordered as their bits are: `ulps` steps either side. */
                int64_t steps = (int64_t)got[c] - (int64_t)want[c];
                close &= (got[c] >> 31) == (want[c] >> 31) && steps <= ulps && steps >= -(int64_t)ulps;
            }
            if (close) continue;
            if (wrong++ == 0) {
                print_float_pixel("   first wrong pixel", x, y, got);
                print(", not");
                for (int c = 0; c < 4; c++) {
                    print(" ");
                    print_hex(want[c]);
                }
                print("\n");
            }
        }
    return wrong;
}

/* The pixels of the float target that are not exactly what `expected` says. */
static uint32_t wrong_float_pixels(void (*expected)(uint32_t x, uint32_t y, uint32_t out[4])) {
    return wrong_float_pixels_within(expected, 0);
}

static void report_float(const char *what, uint32_t wrong) {
    check(wrong == 0, what);
    print("   pixels wrong ");
    print_u64(wrong);
    print(" of 2048\n");
}

/* The quad over the whole target, texture coordinates (0, 0) to (`u`, 1). */
static uint32_t quad_w = F_0; /* the coordinates' third component, for 3D textures */
static void draw_textured_quad(uint32_t u) {
    const Vertex quad[4] = {
        {0, 0, {F_0, F_0, quad_w, F_1}},
        {1024, 0, {u, F_0, quad_w, F_1}},
        {0, 512, {F_0, F_1, quad_w, F_1}},
        {1024, 512, {u, F_1, quad_w, F_1}},
    };
    put_vertices(quad, 4);
    set(BEGIN, TRIANGLES);
    set(DRAW_INDEX_BUFFER, 6); /* the rectangle's indices: 0 1 2, 2 1 3 */
    set(END, 0);
}

/* Colour target 0 is the float target (RF32_GF32_BF32_AF32), cleared to zeros; or again the RGBA8 one. */
static void use_float_target(void) {
    set_address(SET_COLOR_TARGET_A, FLOAT_TARGET);
    uint32_t float_target[4] = {WIDTH * 16, HEIGHT, RF32_GF32_BF32_AF32, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, float_target);
    memset(gpu.memory + FLOAT_TARGET, 0, WIDTH * HEIGHT * 16);
}
static void use_rgba8_target(void) {
    set_address(SET_COLOR_TARGET_A, TARGET);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
}

/* A pixel's derivatives of generic 0 = (x / 16, y / 8) in pixels: dFdx and dFdy of x, then of y. */
static void expect_derivatives(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)x;
    (void)y;
    out[0] = 0x3D800000u; /* 1/16 */
    out[1] = F_0;
    out[2] = F_0;
    out[3] = 0x3E000000u; /* 1/8 */
}

/* Screen-space derivatives (derivatives.ps: SHFL.BFLY in the quad, then FSWZADD, as NVIDIA's compilers build
 * dFdx and dFdy) of an attribute linear across the target, (x / 16, y / 8) in pixels: every pixel of the quad
 * over the target, into the float target, within 4 ULPs of the slopes (the rasteriser's interpolation rounds). */
static void derivatives(void) {
    print("-- derivatives: SHFL.BFLY inside each quad, then FSWZADD, of an attribute linear on the screen\n");
    copy_program(DERIVATIVES_PS, derivatives_ps, derivatives_ps_end);
    use_float_target();
    const uint32_t four = 0x40800000u;
    /* The target's rectangle as two triangles: corners 0 1 2, 2 1 3. */
    const Vertex quad[6] = {
        {0, 0, {F_0, F_0, F_0, F_1}},     {1024, 0, {four, F_0, F_0, F_1}}, {0, 512, {F_0, four, F_0, F_1}},
        {0, 512, {F_0, four, F_0, F_1}}, {1024, 0, {four, F_0, F_0, F_1}}, {1024, 512, {four, four, F_0, F_1}},
    };
    put_vertices(quad, 6);
    stream(0, VERTICES, 32, 32 * 6);
    use_programs(PASS_VS, DERIVATIVES_PS);
    draw_arrays(6, 0);
    stream(0, VERTICES, 32, 32 * 4);
    run("the derivatives drawn");
    report_float("each pixel's dFdx and dFdy: (1/16, 0) of x, (0, 1/8) of y", wrong_float_pixels_within(expect_derivatives, 4));
    use_rgba8_target();
}

/* Whether a votes program's results (r: its checks on predicates true and false everywhere; g, b, a: ANY, ALL and
 * EQ of p) are 1.0 or 0.0 and agree with what any grouping gives where p is `p`: r 1.0, ANY where p holds, not
 * ALL where it does not, ALL only with ANY, EQ exactly when ALL or not ANY. */
static int votes_agree(const uint32_t got[4], int p) {
    /* Bitwise, not short-circuit: how many instructions this takes must not depend on the votes, which depend on
     * the host's grouping, since the instructions retired are the guest clock that later report timestamps hold. */
    int boolean = 1;
    for (int c = 0; c < 4; c++) boolean &= (got[c] == F_0) | (got[c] == F_1);
    int any = got[1] == F_1, all = got[2] == F_1, equal = got[3] == F_1;
    return boolean & (got[0] == F_1) & (!p | any) & (p | !all) & (!all | any) & (equal == (all | !any));
}

/* Warp votes in a pixel program (votes.ps), whose warp is the host's subgroup: which pixels share one is the
 * rasteriser's choice, on Maxwell as on the host (lavapipe does not even keep a quad's pixels together for votes),
 * so each pixel's results are checked against what any grouping gives. Over the whole target: r, the votes on
 * predicates true and false everywhere and the ballot's agreement with the votes, is 1.0 everywhere; of
 * p = (x < 37), ANY (g) holds where p does, ALL (b) fails where p does not and implies ANY, EQ (a) is ALL or not
 * ANY; and some pixels see p differ in their subgroup (ANY 1, ALL 0). */
/* After a votes test: the float target's votes depend on how the host grouped invocations, so they are cleared,
 * leaving the program's final memory (its state hash) the same on every device; then the RGBA8 target again. (For
 * the same reason the tests keep no count of grouping-dependent pixels: its digits would stay on the stack.) */
static void forget_grouping(void) {
    memset(gpu.memory + FLOAT_TARGET, 0, WIDTH * HEIGHT * 16);
    use_rgba8_target();
}

static void pixel_votes(void) {
    print("-- votes: VOTE.ALL, VOTE.ANY, VOTE.EQ and their ballots in a pixel program\n");
    copy_program(VOTES_PS, votes_ps, votes_ps_end);
    use_float_target();
    /* One triangle over the whole target (two would split the quads along their shared edge). */
    const Vertex triangle[3] = {
        {0, 0, {F_0, F_0, F_0, F_1}}, {2048, 0, {F_0, F_0, F_0, F_1}}, {0, 1024, {F_0, F_0, F_0, F_1}}};
    put_vertices(triangle, 3);
    stream(0, VERTICES, 32, 32 * 3);
    use_programs(PASS_VS, VOTES_PS);
    draw_arrays(3, 0);
    stream(0, VERTICES, 32, 32 * 4);
    run("the votes drawn");
    uint32_t wrong = 0, mixed = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            uint32_t got[4];
            memcpy(got, gpu.memory + FLOAT_TARGET + 1024 * y + 16 * x, 16);
            mixed |= (got[1] == F_1) & (got[2] != F_1);
            if (!votes_agree(got, x < 37) && wrong++ == 0) {
                print_float_pixel("   first wrong pixel", x, y, got);
                print("\n");
            }
        }
    report_float("each pixel's votes agree with its own predicate and with each other", wrong);
    check(mixed, "some pixels' subgroups hold pixels on both sides of x = 37 (ANY without ALL)");
    forget_grouping();
}

/* Warp votes in a vertex program (votes.vs), whose warp is the host's subgroup: which vertices share one is the
 * host's choice, on Maxwell as on the host, so each triangle's pixels (flat: its first vertex's outputs, through
 * flat.ps) are checked against what any grouping gives. Everywhere covered: r, the votes on predicates true and
 * false everywhere and the ballot's agreement with the votes, is 1.0; of p (generic 1's x > 0.5: the left
 * triangle's first vertex has it, the right one's has not), ANY (g) holds where p does, ALL (b) fails where p does
 * not and implies ANY, EQ (a) is ALL or not ANY. */
static void vertex_votes(void) {
    print("-- votes: VOTE.ALL, VOTE.ANY, VOTE.EQ and their ballots in a vertex program\n");
    copy_program(VOTES_VS, votes_vs, votes_vs_end);
    use_float_target();
    const Vertex triangles[6] = {
        {0, 0, {F_1, F_0, F_0, F_1}},     {500, 0, {F_0, F_0, F_0, F_1}},    {0, 500, {F_0, F_0, F_0, F_1}},
        {540, 4, {F_0, F_0, F_0, F_1}},   {1020, 4, {F_1, F_0, F_0, F_1}},   {1020, 500, {F_1, F_0, F_0, F_1}}};
    put_vertices(triangles, 6);
    stream(0, VERTICES, 32, 32 * 6);
    use_programs(VOTES_VS, FLAT_PS);
    draw_arrays(6, 0);
    stream(0, VERTICES, 32, 32 * 4);
    run("the vertex votes drawn");
    uint32_t wrong = 0, covered = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            int left = inside(&triangles[0], x, y), right = inside(&triangles[3], x, y);
            if (!left && !right) continue;
            covered++;
            uint32_t got[4];
            memcpy(got, gpu.memory + FLOAT_TARGET + 1024 * y + 16 * x, 16);
            if (!votes_agree(got, left) && wrong++ == 0) {
                print_float_pixel("   first wrong pixel", x, y, got);
                print("\n");
            }
        }
    report("each triangle's votes agree with its first vertex's predicate and with each other", wrong, covered);
    forget_grouping();
}

/* Each pixel's texel: (x / 8, y / 8) of the 8 x 4 patterns, or across twice the width, (x / 4, y / 8) wrapped,
 * clamped, or past the edge the border. */
static void expect_rgba8(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint8_t t[4];
    rgba8_texel(x / 8, y / 8, t);
    for (int c = 0; c < 4; c++) out[c] = unorm_bits(t[c], 8);
}
static void expect_bgr1(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint8_t t[4];
    rgba8_texel(x / 8, y / 8, t);
    out[0] = unorm_bits(t[2], 8);
    out[1] = unorm_bits(t[1], 8);
    out[2] = unorm_bits(t[0], 8);
    out[3] = F_1;
}
/* Left of the middle texture 0's texel (A8B8G8R8), right of it texture 1's (the same texels, swizzled B G R 1). */
static void expect_rgba8_left_bgr1_right(uint32_t x, uint32_t y, uint32_t out[4]) {
    if (x < WIDTH / 2) {
        expect_rgba8(x, y, out);
    } else {
        expect_bgr1(x, y, out);
    }
}
static void expect_b5g6r5(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint16_t t = b5g6r5_texel(x / 8, y / 8);
    out[0] = unorm_bits(t & 31u, 5);
    out[1] = unorm_bits(t >> 5 & 63u, 6);
    out[2] = unorm_bits(t >> 11, 5);
    out[3] = F_1;
}
static void expect_wrapped(uint32_t x, uint32_t y, uint32_t out[4]) { expect_rgba8(8 * (x / 4 % 8), y, out); }
static void expect_clamped(uint32_t x, uint32_t y, uint32_t out[4]) {
    expect_rgba8(8 * (x / 4 < 8 ? x / 4 : 7), y, out);
}
static const uint32_t border[4] = {F_0_2, F_0_6, F_0_8, F_1};
static void expect_border(uint32_t x, uint32_t y, uint32_t out[4]) {
    if (x / 4 < 8) {
        expect_rgba8(8 * (x / 4), y, out);
        return;
    }
    memcpy(out, border, 16);
}

/* Texture 8's texels (255, 0, 255, 128) decoded from sRGB (alpha is linear), then past the edge sampler 2's sRGB
 * border bytes (255, 0, 188) decoded by the sRGB transfer function, ((188 / 255 + 0.055) / 1.055)^2.4 =
 * 0.50288648 (0x3F00BD2B), and BORDER_COLOR_A. */
static void expect_srgb_border(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)y;
    const uint32_t texel[4] = {F_1, 0, F_1, unorm_bits(0x80, 8)}, beyond[4] = {F_1, 0, 0x3F00BD2Bu, border[3]};
    memcpy(out, x / 4 < 8 ? texel : beyond, 16);
}

static void expect_astc(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)y;
    const uint32_t left[4] = {F_1, 0x3F000000u, 0x3E800000u, 0}, right[4] = {0, 0x3E800000u, 0x3F000000u, F_1};
    memcpy(out, x < 32 ? left : right, 16);
}

/* The depth compare's result: 0.51 <= (i + 8j) x 2^19 / (2^24 - 1), true from i + 8j = 17 on (16 gives 0.5000000298),
 * at the texel (x / 8, y / 8), in R; then 0, 0, 1. */
static void expect_shadow(uint32_t x, uint32_t y, uint32_t out[4]) {
    out[0] = x / 8 + 8 * (y / 8) >= 17 ? F_1 : F_0;
    out[1] = F_0;
    out[2] = F_0;
    out[3] = F_1;
}

/* A gather at pixel (x, y) of the 8 x 4 pattern drawn over 64 x 32 pixels: the texel coordinate is
 * (x + 0.5) / 8 - 0.5, so i0 = floor((2x - 7) / 16) (never a whole number: no tie), i1 = i0 + 1, clamped to the
 * edge, the same down; R of (i0, j1), (i1, j1), (i1, j0), (i0, j0), as Vulkan's and OpenGL's gathers order them. */
static int32_t floor_div16(int32_t n) { return n >= 0 ? n / 16 : -((15 - n) / 16); }
static uint32_t clamp_to(int32_t value, int32_t last) { return (uint32_t)(value < 0 ? 0 : value > last ? last : value); }

/* Percentage-closer filtering: the comparisons of the 2 x 2 texels around (x + 0.5) / 8 - 0.5 (the gather's
 * footprint: i0 = floor((2x - 7) / 16), its weight (16 - a) / 16 with a = 2x - 7 - 16 i0, the same down) weighted
 * as a bilinear sample weights them: sixteenths, whose products are exact in FP32. */
static void expect_shadow_filtered(uint32_t x, uint32_t y, uint32_t out[4]) {
    int32_t n = 2 * (int32_t)x - 7, m = 2 * (int32_t)y - 7, i0 = floor_div16(n), j0 = floor_div16(m);
    int32_t a = n - 16 * i0, b = m - 16 * j0, sum = 0;
    for (int32_t dj = 0; dj < 2; dj++)
        for (int32_t di = 0; di < 2; di++) {
            uint32_t i = clamp_to(i0 + di, 7), j = clamp_to(j0 + dj, 3);
            int32_t weight = (di ? a : 16 - a) * (dj ? b : 16 - b);
            if (i + 8 * j >= 17) sum += weight;
        }
    out[0] = float_bits(sum, 8);
    out[1] = F_0;
    out[2] = F_0;
    out[3] = F_1;
}

/* AOFFI's offsets: a sample moved by (+1, -1) texels, clamped to the edge; fetches at (x / 16, y / 16) moved by
 * (+3, +2). */
static void expect_offset_sample(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint8_t t[4];
    rgba8_texel(clamp_to((int32_t)(x / 8) + 1, 7), clamp_to((int32_t)(y / 8) - 1, 3), t);
    for (int c = 0; c < 4; c++) out[c] = unorm_bits(t[c], 8);
}
static void expect_offset_fetch(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint8_t t[4];
    rgba8_texel(x / 16 + 3, y / 16 + 2, t);
    for (int c = 0; c < 4; c++) out[c] = unorm_bits(t[c], 8);
}

static int32_t gather_offset[2];
static int gather_channel; /* the texel channel the gather reads */
/* The footprint's (i0, j0) at pixel (x, y), before offsets and clamping. */
static void footprint(uint32_t x, uint32_t y, int32_t *i0, int32_t *j0) {
    *i0 = floor_div16(2 * (int32_t)x - 7);
    *j0 = floor_div16(2 * (int32_t)y - 7);
}
static void expect_gather(uint32_t x, uint32_t y, uint32_t out[4]) {
    int32_t i0, j0;
    footprint(x, y, &i0, &j0);
    i0 += gather_offset[0];
    j0 += gather_offset[1];
    const int32_t corners[4][2] = {{i0, j0 + 1}, {i0 + 1, j0 + 1}, {i0 + 1, j0}, {i0, j0}};
    for (int c = 0; c < 4; c++) {
        uint8_t t[4];
        rgba8_texel(clamp_to(corners[c][0], 7), clamp_to(corners[c][1], 3), t);
        out[c] = unorm_bits(t[gather_channel], 8);
    }
}

/* Size queries (TXQ), as nxgpucatch's hardware tests have them: width, height, then depth or a 2D array's
 * layers (0 for a 2D texture), then the levels; all but the levels 0 past the last level. */
static void expect_query(const float size[4], uint32_t out[4]) {
    for (int c = 0; c < 4; c++) memcpy(&out[c], &size[c], 4);
}
static void expect_level_1_size(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)x, (void)y;
    const float size[4] = {8, 4, 0, 2}; /* texture 3: 16 x 8, two levels */
    expect_query(size, out);
}
static void expect_past_last_level(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)x, (void)y;
    const float size[4] = {0, 0, 0, 1}; /* texture 6: a 2D array of one level */
    expect_query(size, out);
}
/* The 1D buffer of texture 9: BUFFER_WIDTH R8 UNORM texels, each unlike its neighbours, read as (R, 0, R, 1). */
#define BUFFER_WIDTH 67000u
static uint8_t buffer_texel(uint32_t i) { return (uint8_t)(i * 13 + (i >> 8)); }
/* buffer.ps: texel 0xFF00 + 64 y + x, zeros past the buffer's end (D3D's rule for a buffer read out of range,
 * which the translator follows; what Maxwell returns there is not documented). */
static void expect_buffer_texels(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint32_t i = 0xFF00u + 64 * y + x;
    if (i >= BUFFER_WIDTH) {
        for (int c = 0; c < 4; c++) out[c] = 0;
        return;
    }
    uint32_t r = unorm_bits(buffer_texel(i), 8);
    out[0] = r, out[1] = 0, out[2] = r, out[3] = F_1;
}
/* buffer_runtime.ps: left of the middle, texel 64 y + x of texture 10 (the buffer's first 4096 texels); right of it
 * the pools' placeholder, zeros. */
static void expect_runtime_buffer_texels(uint32_t x, uint32_t y, uint32_t out[4]) {
    if (x >= 32) {
        for (int c = 0; c < 4; c++) out[c] = 0;
        return;
    }
    uint32_t r = unorm_bits(buffer_texel(64 * y + x), 8);
    out[0] = r, out[1] = 0, out[2] = r, out[3] = F_1;
}
static void expect_buffer_size(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)x, (void)y;
    const float size[4] = {BUFFER_WIDTH, 0, 0, 1}; /* texels, no height or depth, one level */
    expect_query(size, out);
}
static void expect_cube_array_size(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)x, (void)y;
    const float size[4] = {8, 8, 2, 1}; /* texture 7: two cubes of 8 x 8 faces, one level */
    expect_query(size, out);
}
static void expect_array_size_masked(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)x, (void)y;
    const float size[4] = {8, 4, 1, 0.5f}; /* texture 6's width, height and levels (mask 0xb), then R3's 0.5 */
    expect_query(size, out);
}

/* TMML over texture 3 (16 x 8, two levels) with u to 8.0 across the 64 pixels: 2 texels a pixel across and 0.25
 * down, so the level is log2(2) = 1 (Vulkan's and OpenGL's scale factor: the larger), and level 1 is the one
 * accessed: 1.0 each in 8.8 fixed point (256), then 0.25 and 2.0. */
static void expect_lod_query(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)x, (void)y;
    const float lod[4] = {256, 256, 0.25f, 2};
    expect_query(lod, out);
}
/* The same over texture 0 (8 x 4, one level) with u to 16.0: level 1 computed, level 0 the only one accessed. */
static void expect_lod_query_one_level(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)x, (void)y;
    const float lod[4] = {256, 0, 0.25f, 2};
    expect_query(lod, out);
}

/* Texture 1 (its R is the texel's B) gathered with offsets (+1, -1), through a bindless handle. */
static void expect_bindless_gather(uint32_t x, uint32_t y, uint32_t out[4]) {
    gather_channel = 2;
    gather_offset[0] = 1;
    gather_offset[1] = -1;
    expect_gather(x, y, out);
    gather_channel = gather_offset[0] = gather_offset[1] = 0;
}

/* Per-texel offsets (TLD4.PTP, as gather_ptp.ps packs them): component k is the (i0, j0) texel of the footprint
 * moved by pair k, as GLSL's textureGatherOffsets defines it; R of it, or with `ptp_compares` the depth compare of
 * texture 5 (0.51 <= the texel's depth: from i + 8j = 17 on, as in expect_shadow). */
static const int32_t ptp_offsets[4][2] = {{1, -1}, {0, 0}, {-2, 1}, {3, 2}};
static int ptp_compares;
static void expect_gather_ptp(uint32_t x, uint32_t y, uint32_t out[4]) {
    int32_t i0, j0;
    footprint(x, y, &i0, &j0);
    for (int k = 0; k < 4; k++) {
        uint32_t i = clamp_to(i0 + ptp_offsets[k][0], 7), j = clamp_to(j0 + ptp_offsets[k][1], 3);
        uint8_t t[4];
        rgba8_texel(i, j, t);
        out[k] = ptp_compares ? (i + 8 * j >= 17 ? F_1 : F_0) : unorm_bits(t[0], 8);
    }
}
static void expect_gather_ptp_compare(uint32_t x, uint32_t y, uint32_t out[4]) {
    ptp_compares = 1;
    expect_gather_ptp(x, y, out);
    ptp_compares = 0;
}

/* Layer 1 of texture 6 (a 2D array whose layer 1 is the pattern turned half round), gathered with offsets
 * (-1, +1): G of components 0, (i0, j1), and 3, (i0, j0), packed into R and G; then 0.25 and 2.0. */
static void layer1_texel(uint32_t i, uint32_t j, uint8_t out[4]) { rgba8_texel(7 - i, 3 - j, out); }
static void expect_gather_layer(uint32_t x, uint32_t y, uint32_t out[4]) {
    int32_t i0, j0;
    footprint(x, y, &i0, &j0);
    uint8_t t[4];
    layer1_texel(clamp_to(i0 - 1, 7), clamp_to(j0 + 2, 3), t);
    out[0] = unorm_bits(t[1], 8);
    layer1_texel(clamp_to(i0 - 1, 7), clamp_to(j0 + 1, 3), t);
    out[1] = unorm_bits(t[1], 8);
    out[2] = 0x3E800000u;
    out[3] = 0x40000000u;
}

/* FP16 bits of an FP32 in FP16's normal range, rounded to nearest even (IEEE 754). */
static uint32_t half_bits(uint32_t f) {
    uint32_t exponent = (f >> 23 & 0xFFu) - 127 + 15, mantissa = f & 0x7FFFFFu;
    uint32_t half = exponent << 10 | mantissa >> 13, rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) half++;
    return (f >> 16 & 0x8000u) | half;
}

/* FP16 results (TEXS.F16, TLD4S.F16): the four FP32 values a program would have had, packed in pairs (the first
 * in the low half) into R and B; G and A keep the 0.5 and 2.0 the program put there. */
static void pack_halves(const uint32_t values[4], uint32_t out[4]) {
    out[0] = half_bits(values[0]) | half_bits(values[1]) << 16;
    out[1] = 0x3F000000u;
    out[2] = half_bits(values[2]) | half_bits(values[3]) << 16;
    out[3] = 0x40000000u;
}
static void expect_rgba8_halves(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint32_t texel[4];
    expect_rgba8(x, y, texel);
    pack_halves(texel, out);
}
static void expect_gather_halves(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint32_t texels[4];
    expect_gather(x, y, texels);
    pack_halves(texels, out);
}

/* The same with the footprint moved by (+1, -1) texels before clamping. */
static void expect_gather_offset(uint32_t x, uint32_t y, uint32_t out[4]) {
    gather_offset[0] = 1;
    gather_offset[1] = -1;
    expect_gather(x, y, out);
    gather_offset[0] = gather_offset[1] = 0;
}

static void use_texture(uint32_t header, uint32_t sampler) {
    uint32_t handle = header | sampler << 20;
    set(LOAD_CONSTANT_BUFFER_OFFSET, 0);
    uint32_t handles[2] = {handle, handle};
    method(LOAD_CONSTANT_BUFFER, 2, handles);
}

/* The target after the triangle: its colour where the edge functions say, the background elsewhere. */
static void expect_rendered(uint32_t x, uint32_t y, uint32_t out[4]) {
    const uint8_t *texel = in_triangle(x, y) ? triangle_colour : target_background;
    for (int c = 0; c < 4; c++) out[c] = unorm_bits(texel[c], 8);
}

/* The volume's slice `volume_slice` after the triangle was drawn into slice 2. */
static uint32_t volume_slice;
static void expect_slice(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint8_t texel[4];
    slice_background(volume_slice, texel);
    if (volume_slice == 2 && in_triangle(x, y)) memcpy(texel, triangle_colour, 4);
    for (int c = 0; c < 4; c++) out[c] = unorm_bits(texel[c], 8);
}

/* Sample x & 3 of pixel (x, y) of the multisampled triangle. */
static void expect_sample(uint32_t x, uint32_t y, uint32_t out[4]) {
    uint32_t s = x & 3;
    int in = covers(triangle, 16 * (int64_t)x + sample_x[s], 16 * (int64_t)y + sample_y[s]);
    for (int c = 0; c < 4; c++) out[c] = unorm_bits((in ? triangle_colour : multisampled_background)[c], 8);
}

/* A texture a draw rendered (BEHAVIOURS 1.9): the triangle drawn into the A8B8G8R8 target, then, after
 * INVALIDATE_TEXTURE_DATA_CACHE (NVN's barrier between rendering to a texture and sampling it), the target read
 * as texture 6 texel for texel into the float target. */
/* The BC1 blocks' texels: (1, 1, 1, 1) where (x + y) & 1 is 0 (colour 0, white), (1, 0, 0, 1) where it is 1 (red:
 * 565 bits 31, 0, 0), as BC1's definition gives in four-colour mode. */
static void expect_bc1(uint32_t x, uint32_t y, uint32_t out[4]) {
    const uint32_t white[4] = {F_1, F_1, F_1, F_1}, red[4] = {F_1, F_0, F_0, F_1};
    memcpy(out, ((x % 4 + y % 4) & 1) ? red : white, 16);
}

/* Texture 6, just rendered (INVALIDATE_TEXTURE_DATA_CACHE LINES ALL), sampled over the float target through
 * sampler 1, each pixel checked against `expected`. */
static void sample_texture_6(const char *what, void (*expected)(uint32_t x, uint32_t y, uint32_t out[4])) {
    set(INVALIDATE_TEXTURE_DATA_CACHE, 0);
    use_float_target();
    use_texture(6, 1);
    use_programs(PASS_VS, TEXTURE_PS);
    draw_textured_quad(F_1);
    run("texture 6 sampled");
    report_float(what, wrong_float_pixels(expected));
}

static void render_to_texture(void) {
    print("-- render to texture: the triangle drawn, INVALIDATE_TEXTURE_DATA_CACHE, the target sampled\n");
    const uint32_t rgba[4] = {TIC_R, TIC_G, TIC_B, TIC_A};
    put_header(6, TIC_A8B8G8R8, rgba, TIC_PITCH, TARGET, (WIDTH * 4) >> 5, 1, WIDTH, HEIGHT, TIC_TWO_D_NO_MIPMAP);
    fill_target(target_background);
    set_address(SET_COLOR_TARGET_A, TARGET);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    draw_arrays(3, 0);
    run("the triangle into the target");
    sample_texture_6("each pixel the texel the triangle's draw left there", expect_rendered);
    uint32_t float_target[4] = {WIDTH * 16, HEIGHT, RF32_GF32_BF32_AF32, PITCH};

    print("-- a 3D texture a draw rendered: the triangle into slice 2, then slices 2 and 1 sampled (TEXS 3D)\n");
    fill_slices(4, volume_texel);
    block_linear_target(VOLUME, 1u << 4 | 1u << 8 | THIRD_DIMENSION_DEFINES_DEPTH_SIZE, 4, 0, 2);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    draw_arrays(3, 0);
    run("the triangle into slice 2");
    /* Texture 7: the volume, blocks two GOBs tall and two deep, four slices. */
    put_header(7, TIC_A8B8G8R8, rgba, TIC_BLOCKLINEAR, VOLUME, 1u << 3 | 1u << 6, 1, WIDTH, HEIGHT, TIC_THREE_D);
    *(uint32_t *)(gpu.memory + TICS + 32 * 7 + 20) |= (4 - 1) << 16; /* DEPTH_MINUS_ONE */
    set(INVALIDATE_TEXTURE_DATA_CACHE, 0);
    set_address(SET_COLOR_TARGET_A, FLOAT_TARGET);
    method(SET_COLOR_TARGET_A + 8, 4, float_target);
    uint32_t zero_layer[3] = {0, 0, 0}; /* THIRD_DIMENSION, ARRAY_PITCH, LAYER as the float target had them */
    method(SET_COLOR_TARGET_A + 0x18, 3, zero_layer);
    copy_program(VOLUME_PS, volume_ps, volume_ps_end);
    use_texture(7, 1);
    use_programs(PASS_VS, VOLUME_PS);
    for (volume_slice = 2; volume_slice >= 1; volume_slice--) {
        memset(gpu.memory + FLOAT_TARGET, 0, WIDTH * HEIGHT * 16);
        quad_w = volume_slice == 2 ? 0x3F200000u /* 0.625 */ : 0x3EC00000u /* 0.375 */;
        draw_textured_quad(F_1);
        run("the volume sampled");
        report_float(volume_slice == 2 ? "slice 2: the triangle over its background" : "slice 1: its background",
                     wrong_float_pixels(expect_slice));
    }
    quad_w = F_0;

    print("-- BC1 blocks a draw wrote through an integer view (RU32_GU32, a block a texel), then sampled as DXT1\n");
    /* Every block: colour 0 white (0xFFFF), colour 1 red (0xF800), so four-colour mode; texel (i, j) of the block
     * takes colour (i + j) & 1 (two bits at 2 (4j + i)). The flat program writes generic 0's words as they are. */
    const uint32_t block[4] = {0xF800FFFFu, 0x11441144u, 0, 0};
    const Vertex covering[4] = {{0, 0, {0}}, {1024, 0, {0}}, {0, 512, {0}}, {1024, 512, {0}}};
    Vertex blocks_quad[4];
    for (int v = 0; v < 4; v++) {
        blocks_quad[v] = covering[v];
        memcpy(blocks_quad[v].colour, block, 16);
    }
    memset(gpu.memory + BLOCKS, 0, 128 * 8);
    set_address(SET_COLOR_TARGET_A, BLOCKS);
    uint32_t blocks_target[4] = {16 * 8, 8, RU32_GU32, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, blocks_target);
    put_vertices(blocks_quad, 4);
    use_programs(PASS_VS, FLAT_PS);
    set(BEGIN, TRIANGLES);
    set(DRAW_INDEX_BUFFER, 6); /* the rectangle's indices: 0 1 2, 2 1 3 */
    set(END, 0);
    run("the blocks drawn");
    put_header(6, TIC_DXT1, rgba, TIC_PITCH, BLOCKS, 128 >> 5, 1, WIDTH, HEIGHT, TIC_TWO_D_NO_MIPMAP);
    sample_texture_6("each pixel its texel of the blocks: white or red by BC1's indices", expect_bc1);

    print("-- a multisampled texture a draw rendered: the triangle at 2X2, then sample x & 3 of each pixel (TLDS MS)\n");
    draw_multisampled_triangle(PASS_VS, PERSPECTIVE_PS);
    /* Texture 6: the 2X2 target's pixels (64 x 32; the memory holds 128 x 64 texels), MULTI_SAMPLE_COUNT 2X2. */
    put_header(6, TIC_A8B8G8R8, rgba, TIC_BLOCKLINEAR, MULTISAMPLED, 1u << 3, 1, WIDTH, HEIGHT, TIC_TWO_D);
    *(uint32_t *)(gpu.memory + TICS + 32 * 6 + 28) |= ANTI_ALIAS_2X2 << 8;
    set(INVALIDATE_TEXTURE_DATA_CACHE, 0);
    set_address(SET_COLOR_TARGET_A, FLOAT_TARGET);
    method(SET_COLOR_TARGET_A + 8, 4, float_target);
    method(SET_COLOR_TARGET_A + 0x18, 3, zero_layer);
    memset(gpu.memory + FLOAT_TARGET, 0, WIDTH * HEIGHT * 16);
    copy_program(SAMPLE_PS, sample_ps, sample_ps_end);
    use_texture(6, 1);
    use_programs(PASS_VS, SAMPLE_PS);
    draw_textured_quad(F_1);
    run("the samples fetched");
    report_float("each pixel sample x & 3 of its pixel: the triangle's colour where it covers the sample's position",
                 wrong_float_pixels(expect_sample));
}

static void textures(void) {
    print("-- textures: headers and samplers from their pools, handles from constant buffer 0\n");
    const uint32_t rgba[4] = {TIC_R, TIC_G, TIC_B, TIC_A}, bgr1[4] = {TIC_B, TIC_G, TIC_R, TIC_ONE_FLOAT};
    const uint32_t rgb1[4] = {TIC_R, TIC_G, TIC_B, TIC_ONE_FLOAT}, none[4] = {0, 0, 0, 0};
    /* Texture 0: the RGBA8 pattern, pitch (32 bytes a row). */
    for (uint32_t j = 0; j < 4; j++)
        for (uint32_t i = 0; i < 8; i++) rgba8_texel(i, j, gpu.memory + TEXELS + 32 * j + 4 * i);
    put_header(0, TIC_A8B8G8R8, rgba, TIC_PITCH, TEXELS, 32 >> 5, 1, 8, 4, TIC_TWO_D_NO_MIPMAP);
    /* Texture 1: the same texels block-linear, blocks two GOBs tall, read B, G, R, 1. */
    for (uint32_t j = 0; j < 4; j++)
        for (uint32_t i = 0; i < 8; i++) rgba8_texel(i, j, gpu.memory + TEXELS + 0x1000 + block_linear_offset(4 * i, j, 32, 1));
    put_header(1, TIC_A8B8G8R8, bgr1, TIC_BLOCKLINEAR, TEXELS + 0x1000, 1u << 3, 1, 8, 4, TIC_TWO_D);
    /* Texture 2: B5G6R5, pitch. */
    for (uint32_t j = 0; j < 4; j++)
        for (uint32_t i = 0; i < 8; i++) {
            uint16_t t = b5g6r5_texel(i, j);
            memcpy(gpu.memory + TEXELS + 0x2000 + 32 * j + 2 * i, &t, 2);
        }
    put_header(2, TIC_B5G6R5, rgb1, TIC_PITCH, TEXELS + 0x2000, 32 >> 5, 1, 8, 4, TIC_TWO_D_NO_MIPMAP);
    /* Texture 3: two levels, block-linear with blocks two GOBs tall: level 0 (16 x 8, one colour) is one GOB
     * tall, so its block shrinks to one GOB and level 1 (8 x 4, the pattern) starts 512 bytes in. */
    for (uint32_t j = 0; j < 8; j++)
        for (uint32_t i = 0; i < 16; i++) {
            const uint8_t flat[4] = {0x10, 0x20, 0x30, 0x40};
            memcpy(gpu.memory + TEXELS + 0x3000 + block_linear_offset(4 * i, j, 64, 0), flat, 4);
        }
    for (uint32_t j = 0; j < 4; j++)
        for (uint32_t i = 0; i < 8; i++) rgba8_texel(i, j, gpu.memory + TEXELS + 0x3000 + 512 + block_linear_offset(4 * i, j, 32, 0));
    put_header(3, TIC_A8B8G8R8, rgba, TIC_BLOCKLINEAR, TEXELS + 0x3000, 1u << 3, 2, 16, 8, TIC_TWO_D);
    /* Texture 4: ASTC 4x4, pitch, two void-extent blocks (one UNORM16 colour each, read as FP16: 1.0, 0.5, 0.25,
     * 0 on the left, the reverse on the right). */
    const uint16_t left[4] = {0xFFFF, 0x8000, 0x4000, 0x0000}, right[4] = {0x0000, 0x4000, 0x8000, 0xFFFF};
    for (int b = 0; b < 2; b++) {
        uint8_t *block = gpu.memory + TEXELS + 0x4000 + 16 * b;
        uint64_t low = 0x1FC | 3u << 10 | 0xFFFFFFFFFFFFFull << 12; /* LDR, reserved bits, no extent */
        memcpy(block, &low, 8);
        memcpy(block + 8, b == 0 ? left : right, 8);
    }
    put_header(4, TIC_ASTC_2D_4X4, rgba, TIC_PITCH, TEXELS + 0x4000, 32 >> 5, 1, 8, 4, TIC_TWO_D_NO_MIPMAP);
    put_sampler(0, TSC_WRAP, TSC_MIP_NONE, none);
    put_sampler(1, TSC_CLAMP_TO_EDGE, TSC_MIP_NONE, none);
    put_sampler(2, TSC_BORDER, TSC_MIP_NONE, border);
    /* Sampler 2's sRGB border bytes (SRGB_BORDER_COLOR_R 31:24 of word 2, G 19:12 and B 27:20 of word 3): R 255,
     * G 0, B 188. Only textures decoded from sRGB read them. */
    *(uint32_t *)(gpu.memory + TSCS + 32 * 2 + 8) |= 255u << 24;
    *(uint32_t *)(gpu.memory + TSCS + 32 * 2 + 12) = 188u << 20;
    put_sampler(3, TSC_CLAMP_TO_EDGE, TSC_MIP_POINT, none);

    /* Texture 5: Z24S8 depths, pitch: texel (i, j) holds D24 (i + 8j) x 2^19, about (i + 8j) / 32. Sampler 4
     * compares (DEPTH_COMPARE, LEQUAL) with point filters. */
    for (uint32_t j = 0; j < 4; j++)
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t texel = (i + 8 * j) << 19 << 8;
            memcpy(gpu.memory + TEXELS + 0x5000 + 32 * j + 4 * i, &texel, 4);
        }
    put_header(5, TIC_Z24S8, rgba, TIC_PITCH, TEXELS + 0x5000, 32 >> 5, 1, 8, 4, TIC_TWO_D_NO_MIPMAP);
    /* As deko3d writes a depth view of Z24S8: R (the stencil, bits 7:0) UINT, G (the depth) UNORM, swizzle G G G 1. */
    *(uint32_t *)(gpu.memory + TICS + 32 * 5) = TIC_Z24S8 | 4u << 7 | TIC_UNORM << 10 | TIC_UNORM << 13 |
                                                TIC_UNORM << 16 | TIC_G << 19 | TIC_G << 22 | TIC_G << 25 |
                                                TIC_ONE_FLOAT << 28;
    /* Texture 6 (until the draws below render into it): a 2D array of two 8 x 4 layers, block-linear, blocks one
     * GOB tall, so each layer is one 512-byte GOB: layer 0 the pattern, layer 1 the pattern turned half round. */
    for (uint32_t layer = 0; layer < 2; layer++)
        for (uint32_t j = 0; j < 4; j++)
            for (uint32_t i = 0; i < 8; i++) {
                uint8_t *texel = gpu.memory + TEXELS + 0x6000 + 512 * layer + block_linear_offset(4 * i, j, 32, 0);
                if (layer == 0) rgba8_texel(i, j, texel);
                else layer1_texel(i, j, texel);
            }
    put_header(6, TIC_A8B8G8R8, rgba, TIC_BLOCKLINEAR, TEXELS + 0x6000, 0, 1, 8, 4, TIC_TWO_D_ARRAY);
    *(uint32_t *)(gpu.memory + TICS + 32 * 6 + 20) |= (2 - 1) << 16; /* DEPTH_MINUS_ONE: two layers */
    /* Texture 7 (until the volume below takes the slot): a cube array of two cubes, 8 x 8 faces, block-linear with
     * one-GOB blocks (12 faces of 512 bytes; their texels do not matter: only queried). DEPTH counts cubes. */
    put_header(7, TIC_A8B8G8R8, rgba, TIC_BLOCKLINEAR, TEXELS + 0x7000, 0, 1, 8, 8, TIC_CUBEMAP_ARRAY);
    *(uint32_t *)(gpu.memory + TICS + 32 * 7 + 20) |= (2 - 1) << 16;
    put_sampler(4, TSC_CLAMP_TO_EDGE, TSC_MIP_NONE, none);
    *(uint32_t *)(gpu.memory + TSCS + 32 * 4) |= 1u << 9 | 3u << 10; /* DEPTH_COMPARE, LEQUAL */
    /* Sampler 5: sampler 4 with linear MAG and MIN filters (2 in 2:0 and 5:4 of word 1): percentage-closer
     * filtering. */
    put_sampler(5, TSC_CLAMP_TO_EDGE, TSC_MIP_NONE, none);
    *(uint32_t *)(gpu.memory + TSCS + 32 * 5) |= 1u << 9 | 3u << 10;
    *(uint32_t *)(gpu.memory + TSCS + 32 * 5 + 4) = 2u | 2u << 4 | TSC_MIP_NONE << 6;
    /* Texture 8: sRGB (A8BL8GL8RL8: the header's SRGB bit, 22 of word 4), pitch, 8 x 4 texels of (255, 0, 255,
     * 128), past texture 4's two blocks. */
    for (uint32_t i = 0; i < 32; i++) {
        const uint8_t texel[4] = {0xFF, 0x00, 0xFF, 0x80};
        memcpy(gpu.memory + TEXELS + 0x4800 + 4 * i, texel, 4);
    }
    put_header(8, TIC_A8B8G8R8, rgba, TIC_PITCH, TEXELS + 0x4800, 32 >> 5, 1, 8, 4, TIC_TWO_D_NO_MIPMAP);
    *(uint32_t *)(gpu.memory + TICS + 32 * 8 + 16) |= 1u << 22;

    /* Texture 9: a 1D buffer (clb097tex.h NVB097_TEXHEAD_1D_*: HEADER_VERSION ONE_D_BUFFER 0, WIDTH_MINUS_ONE's
     * high half in W3[15:0] and low half in W4[15:0], TEXTURE_TYPE ONE_D_BUFFER 6) of BUFFER_WIDTH R8 texels,
     * swizzled R 0 R 1. */
    for (uint32_t i = 0; i < BUFFER_WIDTH; i++) gpu.memory[BUFFER_TEXELS + i] = buffer_texel(i);
    const uint32_t r0r1[4] = {TIC_R, TIC_ZERO, TIC_R, TIC_ONE_FLOAT};
    uint32_t *buffer = (uint32_t *)(gpu.memory + TICS + 32 * 9);
    write_texture_header(buffer, gpu.gpu_address + BUFFER_TEXELS, TIC_R8, r0r1, TIC_ONE_D_BUFFER, 0, 1, 1, 1,
                         TIC_ONE_D_BUFFER_TYPE);
    buffer[3] = (BUFFER_WIDTH - 1) >> 16;
    buffer[4] = ((BUFFER_WIDTH - 1) & 0xFFFFu) | TIC_ONE_D_BUFFER_TYPE << 23;
    buffer[5] = 0;
    /* Texture 10: its first 4096 texels, a buffer small enough to be a 1D image of any device (through the pools). */
    memcpy(gpu.memory + TICS + 32 * 10, buffer, 32);
    ((uint32_t *)(gpu.memory + TICS + 32 * 10))[3] = 0;
    ((uint32_t *)(gpu.memory + TICS + 32 * 10))[4] = (4096 - 1) | TIC_ONE_D_BUFFER_TYPE << 23;

    set_address(SET_TEX_HEADER_POOL_A, TICS);
    set(SET_TEX_HEADER_POOL_A + 8, 10);
    set_address(SET_TEX_SAMPLER_POOL_A, TSCS);
    set(SET_TEX_SAMPLER_POOL_A + 8, 5);
    set(SET_BINDLESS_TEXTURE, 0);
    uint32_t selector[3] = {256, (uint32_t)((gpu.gpu_address + HANDLES) >> 32), (uint32_t)(gpu.gpu_address + HANDLES)};
    method(SET_CONSTANT_BUFFER_SELECTOR_A, 3, selector);
    set(BIND_GROUP_CONSTANT_BUFFER + 32 * 4, 1); /* VALID, slot 0 of the pixel stage */
    /* The float target, and generic 1 (texture coordinates) read as generic 0 by the pixel programs. */
    set_address(SET_COLOR_TARGET_A, FLOAT_TARGET);
    uint32_t target[4] = {WIDTH * 16, HEIGHT, RF32_GF32_BF32_AF32, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    copy_program(TEXTURE_PS, texture_ps, texture_ps_end);
    copy_program(TEXTURE_LOD_PS, texture_lod_ps, texture_lod_ps_end);
    copy_program(FETCH_PS, fetch_ps, fetch_ps_end);
    copy_program(SHADOW_PS, shadow_ps, shadow_ps_end);
    copy_program(SHADOW_SCALAR_PS, shadow_scalar_ps, shadow_scalar_ps_end);
    copy_program(GRADIENT_PS, gradient_ps, gradient_ps_end);
    copy_program(GATHER_PS, gather_ps, gather_ps_end);
    copy_program(GATHER_OFFSET_PS, gather_offset_ps, gather_offset_ps_end);
    copy_program(COUNT_PS, count_ps, count_ps_end);
    copy_program(GATHER_PTP_PS, gather_ptp_ps, gather_ptp_ps_end);
    copy_program(GATHER_PTP_COMPARE_PS, gather_ptp_compare_ps, gather_ptp_compare_ps_end);
    copy_program(GATHER_LAYER_PS, gather_layer_ps, gather_layer_ps_end);
    copy_program(TEXTURE_OFFSET_PS, texture_offset_ps, texture_offset_ps_end);
    copy_program(FETCH_OFFSET_PS, fetch_offset_ps, fetch_offset_ps_end);
    copy_program(FETCH_OFFSET_SCALAR_PS, fetch_offset_scalar_ps, fetch_offset_scalar_ps_end);
    copy_program(TEXTURE_HALF_PS, texture_half_ps, texture_half_ps_end);
    copy_program(GATHER_HALF_PS, gather_half_ps, gather_half_ps_end);
    copy_program(BINDLESS_PS, bindless_ps, bindless_ps_end);
    copy_program(BINDLESS_PAIR_PS, bindless_pair_ps, bindless_pair_ps_end);
    copy_program(TXQ_PS, txq_ps, txq_ps_end);
    copy_program(TXQ_BINDLESS_PS, txq_bindless_ps, txq_bindless_ps_end);
    copy_program(LOD_QUERY_PS, lod_query_ps, lod_query_ps_end);
    copy_program(TXQ_LEVEL0_PS, txq_level0_ps, txq_level0_ps_end);
    copy_program(BINDLESS_RUNTIME_PS, bindless_runtime_ps, bindless_runtime_ps_end);
    copy_program(BUFFER_PS, buffer_ps, buffer_ps_end);
    copy_program(BUFFER_RUNTIME_PS, buffer_runtime_ps, buffer_runtime_ps_end);
    /* c[0x0][0x20]: offsets (+3, +2) for fetch_offset.ps; 0x28: a bindless handle (header 1, sampler 1) for
     * bindless.ps; 0x2c and 0x30: separate texture (header 1, junk above bit 19) and sampler (1) handles for
     * bindless_pair.ps; 0x34: texture 6's handle for txq_bindless.ps; 0x38: texture 0's (sampler 1) for
     * bindless_runtime.ps. */
    const uint32_t constants[7] = {0x23, 0, 1u | 1u << 20, 0xABC00001u, 1, 6u | 1u << 20, 1u << 20};
    memcpy(gpu.memory + HANDLES + 0x20, constants, sizeof constants);

    struct {
        const char *what;
        uint32_t header, sampler, program, u;
        void (*expected)(uint32_t, uint32_t, uint32_t[4]);
    } cases[] = {
        {"A8B8G8R8, pitch: every pixel its texel's UNORM values", 0, 1, TEXTURE_PS, F_1, expect_rgba8},
        {"A8B8G8R8, block-linear, swizzled B G R 1", 1, 1, TEXTURE_PS, F_1, expect_bgr1},
        {"B5G6R5: R in the low bits, 5/6/5-bit UNORM", 2, 1, TEXTURE_PS, F_1, expect_b5g6r5},
        {"level 1 of two, by TEX.LL (its block shrunk to fit level 0)", 3, 3, TEXTURE_LOD_PS, F_1, expect_rgba8},
        {"level 1 of two, by TXD's derivatives (two texels a pixel on level 0)", 3, 3, GRADIENT_PS, F_1, expect_rgba8},
        {"TLDS: the texel at integer coordinates", 0, 1, FETCH_PS, F_1, expect_rgba8},
        {"a sample moved by constant offsets (+1, -1) (TEX.LZ.AOFFI)", 0, 1, TEXTURE_OFFSET_PS, F_1,
         expect_offset_sample},
        {"a fetch moved by offsets read from a constant buffer (TLD.LL.AOFFI)", 0, 1, FETCH_OFFSET_PS, F_1,
         expect_offset_fetch},
        {"a fetch moved by offsets (TLDS 2D.LZ.AOFFI)", 0, 1, FETCH_OFFSET_SCALAR_PS, F_1, expect_offset_fetch},
        {"FP16 results packed in pairs into rd and rd2 (TEXS.F16)", 0, 1, TEXTURE_HALF_PS, F_1, expect_rgba8_halves},
        {"texture 1 through a bindless handle from a constant buffer (TEX.B)", 0, 1, BINDLESS_PS, F_1, expect_bgr1},
        {"TXQ: level 1 of a two-level 16 x 8 texture is 8 x 4", 3, 3, TXQ_PS, F_1, expect_level_1_size},
        {"TXQ: past a 2D array's last level, zeros and its level count", 6, 1, TXQ_PS, F_1, expect_past_last_level},
        {"TXQ: a cube array's faces, cubes and levels", 7, 1, TXQ_LEVEL0_PS, F_1, expect_cube_array_size},
        {"a 1D buffer of 67000 R8 texels fetched past 16 bits of index, zeros past its end (TLDS 1D.LZ)", 9, 1,
         BUFFER_PS, F_1, expect_buffer_texels},
        {"TXQ: a 1D buffer's width in texels and its one level", 9, 1, TXQ_LEVEL0_PS, F_1, expect_buffer_size},
        {"a 1D buffer and the placeholder through a handle chosen per pixel, known only at run time (TLD.B 1D)", 10,
         1, BUFFER_RUNTIME_PS, F_1, expect_runtime_buffer_texels},
        {"TXQ.B: a 2D array's width, height and levels, packed by mask 0xb", 0, 1, TXQ_BINDLESS_PS, F_1,
         expect_array_size_masked},
        {"TMML: two texels a pixel across level 0 is level 1", 3, 3, LOD_QUERY_PS, 0x41000000u, expect_lod_query},
        {"TMML: level 1 computed, level 0 accessed of a texture with one", 0, 1, LOD_QUERY_PS, 0x41800000u,
         expect_lod_query_one_level},
        {"a gather through a handle ORed from texture and sampler handles (TLD4.B.AOFFI)", 0, 1, BINDLESS_PAIR_PS,
         F_1, expect_bindless_gather},
        {"textures 0 and 1 through a handle chosen per pixel, known only at run time (TEX.B)", 7, 0,
         BINDLESS_RUNTIME_PS, F_1, expect_rgba8_left_bgr1_right},
        {"ASTC 4x4: two void-extent blocks' colours, as FP16", 4, 1, TEXTURE_PS, F_1, expect_astc},
        {"coordinates to 2.0, WRAP", 0, 0, TEXTURE_PS, 0x40000000u, expect_wrapped},
        {"coordinates to 2.0, CLAMP_TO_EDGE", 0, 1, TEXTURE_PS, 0x40000000u, expect_clamped},
        {"coordinates to 2.0, BORDER: the sampler's colour past the edge", 0, 2, TEXTURE_PS, 0x40000000u, expect_border},
        {"an sRGB texture to 2.0, BORDER: the sampler's sRGB border bytes decoded past the edge", 8, 2, TEXTURE_PS,
         0x40000000u, expect_srgb_border},
        {"a depth compare (TEX.DC, LEQUAL): 0.51 <= the texel's depth, 1.0 or 0.0", 5, 4, SHADOW_PS, F_1, expect_shadow},
        {"a depth compare through TEXS (2D LZ DC)", 5, 4, SHADOW_SCALAR_PS, F_1, expect_shadow},
        {"a depth compare under linear filtering: the four texels' results weighted bilinearly", 5, 5, SHADOW_PS, F_1,
         expect_shadow_filtered},
        {"a gather of R (TLD4S): the 2x2 texels a bilinear sample would read", 0, 1, GATHER_PS, F_1, expect_gather},
        {"a gather with offsets (+1, -1) (TLD4S.AOFFI)", 0, 1, GATHER_OFFSET_PS, F_1, expect_gather_offset},
        {"a gather with an offset per texel (TLD4.PTP)", 0, 1, GATHER_PTP_PS, F_1, expect_gather_ptp},
        {"a gather's FP16 results packed in pairs into rd and rd2 (TLD4S.F16)", 0, 1, GATHER_HALF_PS, F_1,
         expect_gather_halves},
        {"a depth-compare gather with an offset per texel (TLD4.PTP.DC)", 5, 4, GATHER_PTP_COMPARE_PS, F_1,
         expect_gather_ptp_compare},
        {"layer 1 of a 2D array gathered with offsets, mask 0x9 (TLD4.G.AOFFI ARRAY_2D)", 6, 1, GATHER_LAYER_PS, F_1,
         expect_gather_layer},
    };
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("", cases[k].what);
        memset(gpu.memory + FLOAT_TARGET, 0, WIDTH * HEIGHT * 16);
        use_texture(cases[k].header, cases[k].sampler);
        use_programs(PASS_VS, cases[k].program);
        draw_textured_quad(cases[k].u);
        run("draw");
        report_float(cases[k].what, wrong_float_pixels(cases[k].expected));
    }
    render_to_texture();
}

/* A pixel program that reaches global memory: each pixel the triangle covers adds 1 to a word whose address
 * the program reads from its constant buffer (RED.E.ADD), so the word ends as the pixel count by the edge
 * functions, for a draw with a target and one with none; the program outputs nothing, so the target keeps its
 * texels. */
static void global_memory_from_pixels(void) {
    print("-- a pixel program adding 1 to a word in memory for each pixel it runs for\n");
    uint64_t counter = gpu.gpu_address + COUNTER;
    memcpy(gpu.memory + HANDLES + 0x10, &counter, 8);
    memset(gpu.memory + COUNTER, 0, 4);
    memset(gpu.memory + FLOAT_TARGET, 0, WIDTH * HEIGHT * 16);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, COUNT_PS);
    draw_arrays(3, 0);
    set(SET_CT_SELECT, 0); /* and again with no target at all: the program still runs for each pixel */
    draw_arrays(3, 0);
    set(SET_CT_SELECT, 1);
    run("draws");
    uint32_t counted, covered = 0;
    memcpy(&counted, gpu.memory + COUNTER, 4);
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) covered += (uint32_t)in_triangle(x, y);
    covered *= 2;
    check(counted == covered && covered > 100, "the word counts the triangle's pixels, twice");
    print("   counted ");
    print_u64(counted);
    print(" of ");
    print_u64(covered);
    print("\n");
    uint32_t untouched = 0;
    for (uint32_t i = 0; i < WIDTH * HEIGHT * 4; i++) untouched += ((uint32_t *)(gpu.memory + FLOAT_TARGET))[i] == 0;
    check(untouched == WIDTH * HEIGHT * 4, "the target keeps its texels");
}

/* A pixel program storing to a surface (SUST), header 8 of the pool: each pixel the triangle covers writes its own
 * texel, and every other texel keeps its bytes. */
static void surface_from_pixels(void) {
    print("-- a pixel program storing x | y << 16 to its pixel's texel of a surface (SUST)\n");
    const uint32_t red[4] = {TIC_R, TIC_ZERO, TIC_ZERO, TIC_ONE_FLOAT};
    for (uint32_t i = 0; i < WIDTH * HEIGHT; i++) ((uint32_t *)(gpu.memory + SURFACE))[i] = 0xEEEEEEEEu;
    put_header(8, TIC_R32, red, TIC_PITCH, SURFACE, (4 * WIDTH) >> 5, 1, WIDTH, HEIGHT, TIC_TWO_D_NO_MIPMAP);
    set(SET_TEX_HEADER_POOL_A + 8, 8);
    const uint32_t header = 8; /* a surface has no sampler */
    memcpy(gpu.memory + HANDLES + 0x3C, &header, 4);
    copy_program(SURFACE_PS, surface_ps, surface_ps_end);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, SURFACE_PS);
    draw_arrays(3, 0);
    set(SET_TEX_HEADER_POOL_A + 8, 7);
    run("draw");
    uint32_t wrong = 0, covered = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) {
            uint32_t texel = ((uint32_t *)(gpu.memory + SURFACE))[WIDTH * y + x];
            int inside = in_triangle(x, y);
            covered += (uint32_t)inside;
            wrong += texel != (inside ? (x | y << 16 | 0x5A000000u) : 0xEEEEEEEEu);
        }
    check(wrong == 0 && covered > 100, "the covered pixels' texels hold their coordinates, the others their bytes");
    print("   texels wrong ");
    print_u64(wrong);
    print(" of ");
    print_u64(WIDTH * HEIGHT);
    print(", covered ");
    print_u64(covered);
    print("\n");
}

/* What every pixel of the float target must hold in `ps_saturate`'s current case. */
static uint32_t saturated[4];
static void expect_saturated(uint32_t x, uint32_t y, uint32_t out[4]) {
    (void)x;
    (void)y;
    memcpy(out, saturated, 16);
}

/* What locations.ps writes where generic 0 is (x_ndc + 2, y_ndc + 2) across the target, linearly: x and y at
 * (+0.25, -0.25) pixels from the pixel's centre, x at the centre (the centroid of a pixel of one sample), and the
 * position's x at the offset, each computed exactly. */
static void expect_located(uint32_t x, uint32_t y, uint32_t out[4]) {
    out[0] = float_bits(128 + 4 * (int32_t)x + 3, 7); /* (x + 0.75) / 32 + 1 */
    out[1] = float_bits(64 + 4 * (int32_t)y + 1, 6);  /* (y + 0.25) / 16 + 1 */
    out[2] = float_bits(64 + 2 * (int32_t)x + 1, 6);  /* (x + 0.5) / 32 + 1 */
    out[3] = float_bits(4 * (int32_t)x + 3, 2);       /* x + 0.75 */
}

/* Draws the rectangle `quad` over the whole float target (cleared to zero first) as two triangles, 0 1 2 and
 * 2 1 3, with the programs given; target 0 is the A8B8G8R8 one again after. */
static void draw_float_rectangle(const Vertex quad[4], uint32_t vertex, uint32_t pixel) {
    set_address(SET_COLOR_TARGET_A, FLOAT_TARGET);
    uint32_t float_target[4] = {WIDTH * 16, HEIGHT, RF32_GF32_BF32_AF32, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, float_target);
    memset(gpu.memory + FLOAT_TARGET, 0, WIDTH * HEIGHT * 16);
    put_vertices(quad, 4);
    stream(0, VERTICES, 32, 32 * 4);
    rectangle_index_buffer();
    use_programs(vertex, pixel);
    set(BEGIN, TRIANGLES);
    set(DRAW_INDEX_BUFFER, 6);
    set(END, 0);
    run("draw");
    set_address(SET_COLOR_TARGET_A, TARGET);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
}

/* A pixel program interpolating at an offset from the pixel centre and at the centroid (IPA .OFFSET, .CENTROID)
 * over the whole float target: within 2^-12 of the exact values (their floats lie in [1, 4) but the position's,
 * exact), the hosts' interpolation being that close. */
static void interpolation_locations(uint32_t vertex, uint32_t pixel) {
    const uint32_t one = F_1, three = 0x40400000u;
    const Vertex quad[4] = {
        {0, 0, {one, one, F_0, F_1}},
        {1024, 0, {three, one, F_0, F_1}},
        {0, 512, {one, three, F_0, F_1}},
        {1024, 512, {three, three, F_0, F_1}},
    };
    draw_float_rectangle(quad, vertex, pixel);
    report_float("generic 0 at (+0.25, -0.25) and at the centroid, and position x at the offset",
                 wrong_float_pixels_within(expect_located, 1u << 11));
}

/* The whole float target as two triangles (the rectangle's): primitive.ps writes the number of the triangle each
 * pixel's centre is in, by edge functions, as a float, then 0.25, 0.5 and 1.0. */
static const Vertex whole_target[4] = {
    {0, 0, {F_0, F_0, F_0, F_0}},
    {1024, 0, {F_0, F_0, F_0, F_0}},
    {0, 512, {F_0, F_0, F_0, F_0}},
    {1024, 512, {F_0, F_0, F_0, F_0}},
};
static void expect_primitive(uint32_t x, uint32_t y, uint32_t out[4]) {
    const Vertex first[3] = {whole_target[0], whole_target[1], whole_target[2]};
    out[0] = inside(first, x, y) ? F_0 : F_1;
    out[1] = 0x3E800000u;
    out[2] = 0x3F000000u;
    out[3] = F_1;
}
static void primitive_ids(uint32_t vertex, uint32_t pixel) {
    draw_float_rectangle(whole_target, vertex, pixel);
    report_float("each pixel the number of its triangle (a[0x60], PrimitiveId)", wrong_float_pixels(expect_primitive));
}

/* The whole float target drawn in one flat colour out of [-1, 1], under each SET_PS_SATURATE setting. */
static void ps_saturate(void) {
    const uint32_t half = 0x3F000000u, minus_half = 0xBF000000u, two = 0x40000000u, minus_two = 0xC0000000u;
    const uint32_t minus_one = 0xBF800000u;
    struct {
        const char *what;
        uint32_t value, expected[4];
    } cases[] = {
        {"no SET_PS_SATURATE: the float target takes (2, -0.5, 0.5, -2) as the program wrote it", 0,
         {two, minus_half, half, minus_two}},
        {"SET_PS_SATURATE output 0, ZERO_TO_PLUS_ONE: (1, 0, 0.5, 0)", 0x1, {F_1, F_0, half, F_0}},
        {"SET_PS_SATURATE output 0, MINUS_ONE_TO_PLUS_ONE: (1, -0.5, 0.5, -1)", 0x3, {F_1, minus_half, half, minus_one}},
        {"SET_PS_SATURATE output 1 only: output 0 unclamped", 0x10, {two, minus_half, half, minus_two}},
    };
    const Vertex quad[4] = {
        {0, 0, {two, minus_half, half, minus_two}},
        {1024, 0, {two, minus_half, half, minus_two}},
        {0, 512, {two, minus_half, half, minus_two}},
        {1024, 512, {two, minus_half, half, minus_two}},
    };
    use_programs(PASS_VS, FLAT_PS);
    for (uint32_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        heading("", cases[k].what);
        memset(gpu.memory + FLOAT_TARGET, 0, WIDTH * HEIGHT * 16);
        memcpy(saturated, cases[k].expected, 16);
        set(SET_PS_SATURATE, cases[k].value);
        put_vertices(quad, 4);
        set(BEGIN, TRIANGLES);
        set(DRAW_INDEX_BUFFER, 6); /* the rectangle's indices: 0 1 2, 2 1 3 */
        set(END, 0);
        run("draw");
        report_float(cases[k].what, wrong_float_pixels(expect_saturated));
    }
    set(SET_PS_SATURATE, 0);
}

/* The state every draw shares: target 0 (pitch A8B8G8R8), the viewport, the program region (Maxwell), generic 0
 * and 1 as four floats each from stream 0. */
static void shared_state(void) {
    words[n++] = PB_NONINC(0, SET_OBJECT, 1);
    words[n++] = ampere ? 0xC797 : 0xB197;
    set_address(SET_COLOR_TARGET_A, TARGET);
    uint32_t target[4] = {WIDTH * 4, HEIGHT, A8B8G8R8, PITCH};
    method(SET_COLOR_TARGET_A + 8, 4, target);
    set(SET_CT_SELECT, 1);
    set(SET_CT_WRITE, 0x1111);
    uint32_t viewport[6] = {float_bits(32, 0), float_bits(16, 0), 0x3F000000u,
                            float_bits(32, 0), float_bits(16, 0), 0x3F000000u};
    method(SET_VIEWPORT_SCALE_X, 6, viewport);
    set(SET_VIEWPORT_SCALE_OFFSET, 1);
    uint32_t clip[2] = {(uint32_t)WIDTH << 16, (uint32_t)HEIGHT << 16};
    method(SET_VIEWPORT_CLIP_HORIZONTAL, 2, clip);
    method(SET_SURFACE_CLIP_HORIZONTAL, 2, clip);
    set(SET_VIEWPORT_Z_CLIP, 1);
    set(SET_RASTER_ENABLE, 1);
    if (!ampere) set_address(SET_PROGRAM_REGION_A, REGION);
    uint32_t attributes[2] = {0 | FLOAT_R32_G32_B32_A32, 0 | 16u << 7 | FLOAT_R32_G32_B32_A32};
    method(SET_VERTEX_ATTRIBUTE_A, 2, attributes);
    stream(0, VERTICES, 32, 32 * 4);
    run("the 3D state");
}

/* `count` vertices (`launch` DRAW_VERTEX_ARRAY) or indices (DRAW_INDEX_BUFFER) from 0 as TRIANGLES: BEGIN, the
 * first and the launch (the method before it, then it), END. */
static void begin_draw_end(uint32_t launch, uint32_t count) {
    set(BEGIN, TRIANGLES);
    uint32_t range[2] = {0, count};
    method(launch - 4, 2, range);
    set(END, 0);
}

/* The same through Ampere B's one-method draws after SET_DRAW_CONTROL_A. */
static void draw_control(uint32_t launch, uint32_t count) {
    set(SET_DRAW_CONTROL_A, TRIANGLES);
    uint32_t range[2] = {0, count};
    method(launch == DRAW_INDEX_BUFFER ? DRAW_INDEX_BUFFER_BEGIN_END_A : DRAW_VERTEX_ARRAY_BEGIN_END_A, 2, range);
}

/* The triangle drawn by the programs in use onto the background through `draw`: the pixels inside take its
 * colour. */
static void perspective_triangle(void (*draw)(uint32_t, uint32_t)) {
    uint32_t count;
    fill_target(target_background);
    put_vertices(triangle, 3);
    draw(DRAW_VERTEX_ARRAY, 3);
    run("draw");
    uint32_t wrong = wrong_pixels(in_triangle, triangle_colour, target_background, &count);
    report("the pixels whose centres are inside, and only those, take (51, 153, 204, 255)", wrong, count);
}

static int in_triangle_left_of_32(uint32_t x, uint32_t y) { return in_triangle(x, y) && x < 32; }

/* The triangle drawn by the programs in use, which kill the invocations of the pixels whose centres lie right of
 * x = 32 (kill.ps, kill86.ps): those keep the target's texels, the others take the triangle's colour. */
static void killed_triangle(void) {
    uint32_t count;
    fill_target(target_background);
    put_vertices(triangle, 3);
    begin_draw_end(DRAW_VERTEX_ARRAY, 3);
    run("draw");
    uint32_t wrong = wrong_pixels(in_triangle_left_of_32, triangle_colour, target_background, &count);
    report("the pixels inside and left of x = 32 take (51, 153, 204, 255); the killed ones keep the background",
           wrong, count);
}

/* The rectangle's six 16-bit indices as the index buffer, from index 0. */
static void rectangle_index_buffer(void) {
    memcpy(gpu.memory + INDICES, rectangle_indices, sizeof rectangle_indices);
    index_buffer(INDICES, sizeof rectangle_indices);
    uint32_t index_format[2] = {1 /* TWO_BYTES */, 0 /* FIRST */};
    method(SET_INDEX_BUFFER_A + 16, 2, index_format);
}

/* The rectangle as two triangles sharing an edge, 16-bit indices, drawn by the programs in use through `draw`. */
static void indexed_rectangle(void (*draw)(uint32_t, uint32_t)) {
    uint32_t count;
    fill_target(target_background);
    put_vertices(rectangle, 4);
    rectangle_index_buffer();
    draw(DRAW_INDEX_BUFFER, 6);
    run("draw");
    uint32_t wrong = wrong_pixels(in_rectangle, rectangle_colour, target_background, &count);
    report("the rectangle's pixels, each drawn once, and nothing else", wrong, count);
}

/* REPORT_SEMAPHORE_EXECUTE (Ampere B) with `operation` at REPORTS + 16 * `slot`, its payload `payload`:
 * OPERATION 1:0 (RELEASE 0, REPORT_ONLY 2), REPORT 11:7, STRUCTURE_SIZE 14:13 (FOUR_WORDS 0, ONE_WORD 1,
 * TWO_WORDS 2), REDUCTION_ENABLE 20, REDUCTION_OP 23:21 (RED_ADD 0), PAYLOAD_SIZE64 27 (clc797.h). */
static void report_semaphore_execute(uint32_t slot, uint64_t payload, uint32_t operation) {
    uint64_t address = gpu.gpu_address + REPORTS + 16 * slot;
    uint32_t values[5] = {(uint32_t)payload, (uint32_t)(payload >> 32), (uint32_t)address, (uint32_t)(address >> 32),
                          operation};
    method(SET_REPORT_SEMAPHORE_PAYLOAD_LOWER, 5, values);
}

/* Prints a 64-bit value and checks it. */
static void expect_value(const char *what, uint64_t got, uint64_t want) {
    print("   ");
    print(what);
    print(": ");
    print_hex(got);
    print("\n");
    check(got == want, what);
}

/* SM86's TMML on Ampere B: texture 3's header again (16 x 8 and 8 x 4 levels, block-linear; later cases reused the
 * slot) and sampler 3 (mipmapped), the handle in the pixel stage's constant buffer 0 (the bank and word
 * lod_query86.ps names), the float target; two texels a pixel across level 0 is level 1, computed and accessed. */
static void ampere_lod_query(void) {
    const uint32_t rgba[4] = {TIC_R, TIC_G, TIC_B, TIC_A}, none[4] = {0, 0, 0, 0};
    put_header(3, TIC_A8B8G8R8, rgba, TIC_BLOCKLINEAR, TEXELS + 0x3000, 1u << 3, 2, 16, 8, TIC_TWO_D);
    put_sampler(3, TSC_CLAMP_TO_EDGE, TSC_MIP_POINT, none);
    copy_program(LOD_QUERY86_PS, lod_query86_ps, lod_query86_ps_end);
    set_address(SET_TEX_HEADER_POOL_A, TICS);
    set(SET_TEX_HEADER_POOL_A + 8, 8);
    set_address(SET_TEX_SAMPLER_POOL_A, TSCS);
    set(SET_TEX_SAMPLER_POOL_A + 8, 5);
    uint32_t selector[3] = {256, (uint32_t)((gpu.gpu_address + HANDLES) >> 32), (uint32_t)(gpu.gpu_address + HANDLES)};
    method(SET_CONSTANT_BUFFER_SELECTOR_A, 3, selector);
    set(BIND_GROUP_CONSTANT_BUFFER + 32 * 4, 1); /* VALID, slot 0 of the pixel stage */
    use_float_target();
    use_texture(3, 3);
    use_programs(PASS86_VS, LOD_QUERY86_PS);
    draw_textured_quad(0x41000000u);
    run("draw");
    report_float("TMML (SM86): levels 1.0 computed and accessed (x 256)", wrong_float_pixels(expect_lod_query));
    use_rgba8_target();
}

/* The Switch 2's 3D class, Ampere B (C797), on a channel of its own over `memory`: SM86 programs (the twins of
 * pass.vs and perspective.ps, behind version 4 headers) at their own addresses draw the triangle and the indexed
 * rectangle, vertex stream and index buffer bounded by their sizes; REPORT_SEMAPHORE_EXECUTE then reports the data
 * assembler's counters and releases payloads in the structures clc797.h lays out. */
static void ampere_class(Handle nv, void *memory) {
    if (n != 0) run("what the Maxwell B cases left to submit");
    nv_close(nv, gpu.channel);
    check(gpu_open_class(&gpu, nv, memory, 0x100000, 0xC797) == 0, "a channel with AMPERE_B set up");
    ampere = 1;
    copy_program(PASS86_VS, pass86_vs, pass86_vs_end);
    copy_program(PERSPECTIVE86_PS, perspective86_ps, perspective86_ps_end);
    shared_state();
    set(SET_STATISTICS_COUNTER, 3); /* vertices and primitives generated */
    set(CLEAR_REPORT_VALUE, 0x12);
    set(CLEAR_REPORT_VALUE, 0x13);
    use_programs(PASS86_VS, PERSPECTIVE86_PS);

    print("-- AMPERE_B: the triangle, SM86 programs at their own addresses\n");
    perspective_triangle(begin_draw_end);
    print("-- AMPERE_B: the indexed rectangle, its index buffer bounded by SET_INDEX_BUFFER_SIZE\n");
    indexed_rectangle(begin_draw_end);
    print("-- AMPERE_B: both again through SET_DRAW_CONTROL_A and DRAW_*_BEGIN_END_A/B\n");
    perspective_triangle(draw_control);
    indexed_rectangle(draw_control);

    print("-- AMPERE_B: two instances in one draw (SET_DRAW_CONTROL_A INSTANCE_ITERATE_ENABLE, SET_DRAW_CONTROL_B 2), "
          "a per-instance offset stream\n");
    copy_program(OFFSET86_VS, offset86_vs, offset86_vs_end);
    fill_target(target_background);
    put_vertices(small, 3);
    instance_offsets();
    use_programs(OFFSET86_VS, PERSPECTIVE86_PS);
    uint32_t control[2] = {TRIANGLES | INSTANCE_ITERATE_ENABLE, 2}, first_and_count[2] = {0, 3};
    method(SET_DRAW_CONTROL_A, 2, control);
    method(DRAW_VERTEX_ARRAY_BEGIN_END_A, 2, first_and_count);
    run("draw");
    const uint8_t small_colour[4] = {204, 51, 153, 255};
    uint32_t count, wrong = wrong_pixels(in_instances, small_colour, target_background, &count);
    report("the triangle and its copy 16 pixels right and 4 down", wrong, count);

    print("-- AMPERE_B: REPORT_SEMAPHORE_EXECUTE, counters and releases\n");
    memset(gpu.memory + REPORTS, 0xEE, 16 * 4);
    uint32_t start = 5;
    memcpy(gpu.memory + REPORTS + 16 * 3, &start, 4);
    report_semaphore_execute(0, 0, 2 | 1u << 7 | 2u << 13);  /* REPORT_ONLY DA_VERTICES_GENERATED, TWO_WORDS */
    report_semaphore_execute(1, 0, 2 | 3u << 7);              /* REPORT_ONLY DA_PRIMITIVES_GENERATED, FOUR_WORDS */
    report_semaphore_execute(2, 0x1122334455667788ull, 2u << 13 | 1u << 27); /* RELEASE, TWO_WORDS, PAYLOAD_SIZE64 */
    report_semaphore_execute(3, 0xFFFFFFFF00000007ull, 1u << 13 | 1u << 20); /* RELEASE, ONE_WORD, RED_ADD */
    run("reports");
    /* Three vertices for each triangle, six indices for each rectangle (one primitive, then two, twice), and three
     * vertices (one primitive) for each of the two instances. */
    expect_value("the vertices the draws launched (two words)", reported(0), 24);
    expect_value("the primitives the draws launched (four words: the count, then the timestamp)", reported(1), 8);
    uint64_t timestamp;
    memcpy(&timestamp, gpu.memory + REPORTS + 16 + 8, 8);
    check(timestamp != 0xEEEEEEEEEEEEEEEEull, "a four-word report writes its timestamp");
    expect_value("a 64-bit payload released as two words", reported(2), 0x1122334455667788ull);
    expect_value("a one-word RED_ADD of the payload's low word", reported(3), 0xEEEEEEEE0000000Cull);

    print("-- AMPERE_B: KILL (SM86) under a predicate: the pixels right of x = 32 killed\n");
    copy_program(KILL86_PS, kill86_ps, kill86_ps_end);
    use_programs(PASS86_VS, KILL86_PS);
    killed_triangle();

    print("-- AMPERE_B: attributes at physical addresses (SM86 AL2P, ALD.PHYS, AST.PHYS): the triangle's colour again\n");
    copy_program(INDEXED86_VS, indexed86_vs, indexed86_vs_end);
    use_programs(INDEXED86_VS, PERSPECTIVE86_PS);
    perspective_triangle(begin_draw_end);

    print("-- AMPERE_B: TMML (SM86): the level of detail of a sample two texels a pixel across level 0\n");
    ampere_lod_query();

    print("-- AMPERE_B: PIXLD.MY_INDEX and COVMASK (SM86) at 2X2: each covered sample its index and coverage bit\n");
    copy_program(SAMPLES86_PS, samples86_ps, samples86_ps_end);
    per_sample_shading(PASS86_VS, SAMPLES86_PS);

    print("-- AMPERE_B: a geometry program (SM86: ISBERD [base + v], OUT.FINAL) drawing the triangle twice\n");
    copy_program(COPIES86_GS, copies86_gs, copies86_gs_end);
    geometry_copies(PASS86_VS, COPIES86_GS, PERSPECTIVE86_PS);

    print("-- AMPERE_B: tessellation programs (SM86: ISBERD [base + v], ALD.P and AST.P) drawing a patch\n");
    copy_program(PATCH86_TCS, patch86_tcs, patch86_tcs_end);
    copy_program(PATCH86_TES, patch86_tes, patch86_tes_end);
    tessellated_patch(PASS86_VS, PATCH86_TCS, PATCH86_TES, PERSPECTIVE86_PS);

    print("-- AMPERE_B: interpolation away from the pixel centre (SM86 IPA .OFFSET by register and immediate, "
          ".CENTROID)\n");
    copy_program(LOCATIONS86_PS, locations86_ps, locations86_ps_end);
    interpolation_locations(PASS86_VS, LOCATIONS86_PS);
}

int main(void) {
    uint64_t heap;
    check(svc_set_heap_size(&heap, 0x800000) == 0, "SetHeapSize");
    Handle nv = nv_connect((void *)heap, 0x300000);
    check(gpu_open(&gpu, nv, (void *)(heap + 0x400000), 0x100000) == 0, "channel set up");
    copy_program(PASS_VS, pass_vs, pass_vs_end);
    copy_program(OFFSET_VS, offset_vs, offset_vs_end);
    copy_program(PERSPECTIVE_PS, perspective_ps, perspective_ps_end);
    copy_program(FLAT_PS, flat_ps, flat_ps_end);
    copy_program(TWO_PS, two_ps, two_ps_end);
    copy_program(VIEWPORT_VS, viewport_vs, viewport_vs_end);
    copy_program(RG_PS, rg_ps, rg_ps_end);

    shared_state();

    const uint8_t background[4] = {0x11, 0x22, 0x33, 0x44};
    uint32_t count, wrong;

    print("-- a triangle, its colour interpolated with perspective\n");
    use_programs(PASS_VS, PERSPECTIVE_PS);
    perspective_triangle(begin_draw_end);

    print("-- KIL under a predicate: the pixels right of x = 32 killed\n");
    copy_program(KILL_PS, kill_ps, kill_ps_end);
    use_programs(PASS_VS, KILL_PS);
    killed_triangle();

    print("-- flat shading: the first vertex's colour\n");
    fill_target(background);
    Vertex coloured[3] = {triangle[0], triangle[1], triangle[2]};
    uint32_t firsts[4] = {F_1, F_0, F_0_2, F_1}, others[4] = {F_0, F_1, F_0, F_0_6}, lasts[4] = {F_0, F_0_2, F_1, F_1};
    memcpy(coloured[0].colour, firsts, 16);
    memcpy(coloured[1].colour, others, 16);
    memcpy(coloured[2].colour, lasts, 16);
    put_vertices(coloured, 3);
    use_programs(PASS_VS, FLAT_PS);
    draw_arrays(3, 0);
    run("draw");
    const uint8_t first_colour[4] = {255, 0, 51, 255};
    wrong = wrong_pixels(in_triangle, first_colour, background, &count);
    report("every covered pixel takes the provoking (first) vertex's (255, 0, 51, 255)", wrong, count);

    print("-- flat shading, SET_PROVOKING_VERTEX LAST (NVN's): the last vertex's colour\n");
    fill_target(background);
    set(SET_PROVOKING_VERTEX, 1);
    draw_arrays(3, 0);
    set(SET_PROVOKING_VERTEX, 0);
    run("draw");
    const uint8_t last_colour[4] = {0, 51, 255, 255};
    wrong = wrong_pixels(in_triangle, last_colour, background, &count);
    report("every covered pixel takes the last vertex's (0, 51, 255, 255)", wrong, count);

    print("-- an indexed rectangle: two triangles sharing an edge, 16-bit indices\n");
    use_programs(PASS_VS, PERSPECTIVE_PS);
    indexed_rectangle(begin_draw_end);

    print("-- a geometry program: two invocations, each emitting the triangle at its own offset\n");
    copy_program(COPIES_GS, copies_gs, copies_gs_end);
    geometry_copies(PASS_VS, COPIES_GS, PERSPECTIVE_PS);

    print("-- triangles with adjacency: vertices 0, 2 and 4 make the triangle, drawn as it is and by a geometry program "
          "that emits them\n");
    copy_program(ADJACENCY_GS, adjacency_gs, adjacency_gs_end);
    const Vertex junk = {0, 0, {F_1, F_1, F_1, F_1}};
    const Vertex with_adjacency[6] = {small[0], junk, small[1], junk, small[2], junk};
    for (int through_geometry = 0; through_geometry < 2; through_geometry++) {
        fill_target(target_background);
        put_vertices(with_adjacency, 6);
        stream(0, VERTICES, 32, 32 * 6);
        use_programs(PASS_VS, PERSPECTIVE_PS);
        if (through_geometry) use_stage(4, ADJACENCY_GS);
        draw_primitives(TRIANGLES_ADJACENCY, 6);
        use_stage(4, ~0u);
        run("draw");
        const uint8_t small_colour[4] = {204, 51, 153, 255};
        wrong = wrong_pixels(in_small, small_colour, target_background, &count);
        report(through_geometry ? "the triangle the geometry program emits" : "the triangle, adjacent vertices skipped",
               wrong, count);
    }

    print("-- tessellation: a patch of three control points through control and evaluation programs (slots 2 and 3), "
          "every level 1.0: the patch's triangle\n");
    copy_program(PATCH_TCS, patch_tcs, patch_tcs_end);
    copy_program(PATCH_TES, patch_tes, patch_tes_end);
    tessellated_patch(PASS_VS, PATCH_TCS, PATCH_TES, PERSPECTIVE_PS);

    print("-- attributes at physical addresses (AL2P, ALD.PHYS, AST.PHYS, IPA.IDX): the triangle's colour again\n");
    copy_program(INDEXED_VS, indexed_vs, indexed_vs_end);
    copy_program(INDEXED_PS, indexed_ps, indexed_ps_end);
    use_programs(INDEXED_VS, INDEXED_PS);
    perspective_triangle(begin_draw_end);

    print("-- primitive restart: strips cut in two by 0xFFFF (16-bit indices), by 9 (32-bit), at vertex 4 (arrays)\n");
    const Vertex strips[9] = {
        {41, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {441, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {41, 420, {F_0_6, F_0_8, F_0_2, F_1}},
        {441, 420, {F_0_6, F_0_8, F_0_2, F_1}},
        {512, 256, {F_1, F_1, F_1, F_1}}, /* vertex 4: only the non-indexed launch reaches it, as its restart */
        {601, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {1001, 73, {F_0_6, F_0_8, F_0_2, F_1}},
        {601, 420, {F_0_6, F_0_8, F_0_2, F_1}},
        {1001, 420, {F_0_6, F_0_8, F_0_2, F_1}},
    };
    put_vertices(strips, 9);
    stream(0, VERTICES, 32, 32 * 9);
    const uint16_t short_strips[9] = {0, 1, 2, 3, 0xFFFF, 5, 6, 7, 8};
    const uint32_t long_strips[9] = {0, 1, 2, 3, 9, 5, 6, 7, 8};
    memcpy(gpu.memory + INDICES, short_strips, sizeof short_strips);
    memcpy(gpu.memory + INDICES + 0x100, long_strips, sizeof long_strips);
    set(SET_DA_PRIMITIVE_RESTART, 1);
    for (int k = 0; k < 3; k++) {
        fill_target(background);
        set(BEGIN, TRIANGLE_STRIP);
        if (k < 2) {
            uint32_t at = k == 0 ? INDICES : INDICES + 0x100, size = k == 0 ? 2 : 4;
            set(SET_DA_PRIMITIVE_RESTART_INDEX, k == 0 ? 0xFFFF : 9);
            index_buffer(at, 9 * size);
            uint32_t format[2] = {size / 2 /* TWO_BYTES, FOUR_BYTES */, 0 /* FIRST */};
            method(SET_INDEX_BUFFER_A + 16, 2, format);
            set(DRAW_INDEX_BUFFER, 9);
        } else {
            set(SET_DA_PRIMITIVE_RESTART_INDEX, 4);
            set(SET_DA_PRIMITIVE_RESTART_VERTEX_ARRAY, 1);
            uint32_t range[2] = {0, 9};
            method(SET_VERTEX_ARRAY_START, 2, range);
        }
        set(END, 0);
        run("draw");
        wrong = wrong_pixels(in_two_rectangles, rectangle_colour, background, &count);
        report(k == 0 ? "two rectangles, 0xFFFF among 16-bit indices"
                      : k == 1 ? "two rectangles, 9 among 32-bit indices" : "two rectangles, vertex 4 of an array",
               wrong, count);
    }
    set(SET_DA_PRIMITIVE_RESTART, 0);
    set(SET_DA_PRIMITIVE_RESTART_VERTEX_ARRAY, 0);
    /* The rectangle's index buffer again, as the later cases use it. */
    rectangle_index_buffer();
    stream(0, VERTICES, 32, 32 * 4);
    run("the rectangle's indices and vertex stream");

    print("-- points of SET_POINT_SIZE 5 at pixel centres, then of size 6 at pixel corners, from the vertex program "
          "and through a geometry program that hands them on (points.gs)\n");
    copy_program(POINTS_GS, points_gs, points_gs_end);
    for (int k = 0; k < 4; k++) {
        fill_target(background);
        point_corner = k % 2;
        const Vertex points[3] = {
            {point_x[point_corner][0], point_y[point_corner][0], {F_0_6, F_0_8, F_0_2, F_1}},
            {point_x[point_corner][1], point_y[point_corner][1], {F_0_6, F_0_8, F_0_2, F_1}},
            {point_x[point_corner][2], point_y[point_corner][2], {F_0_6, F_0_8, F_0_2, F_1}},
        };
        put_vertices(points, 3);
        point_size = point_corner ? 6 : 5;
        set(SET_POINT_SIZE, point_corner ? 0x40C00000u /* 6.0 */ : 0x40A00000u /* 5.0 */);
        if (k >= 2) use_stage(4, POINTS_GS);
        draw_primitives(POINTS, 3);
        use_stage(4, ~0u);
        run("draw");
        wrong = wrong_pixels(in_points, rectangle_colour, background, &count);
        static const char *const what[4] = {"5 x 5 squares around each centre", "6 x 6 squares around each corner",
                                            "5 x 5 squares around each centre, through the geometry program",
                                            "6 x 6 squares around each corner, through the geometry program"};
        report(what[k], wrong, count);
    }

    print("-- point sprites: each pixel of 6 x 6 points takes its sprite coordinate, t counted from the top edge "
          "(ORIGIN TOP, which is Vulkan's PointCoord) or from the bottom\n");
    copy_program(SPRITE_PS, sprite_ps, sprite_ps_end);
    use_programs(PASS_VS, SPRITE_PS);
    /* The last points above: size 6 at pixel corners. */
    point_corner = 1;
    point_size = 6;
    set(SET_POINT_SPRITE, 1);
    for (int top = 0; top < 2; top++) {
        fill_target(background);
        set(SET_POINT_SPRITE_SELECT, top ? 4u : 0u);
        draw_primitives(POINTS, 3);
        run("draw");
        wrong = 0, count = 0;
        for (uint32_t y = 0; y < HEIGHT; y++)
            for (uint32_t x = 0; x < WIDTH; x++) {
                const uint8_t *texel = gpu.memory + TARGET + 256 * y + 4 * x;
                if (!in_points(x, y)) {
                    wrong += memcmp(texel, background, 4) != 0;
                    continue;
                }
                /* Vulkan's PointCoord at the pixel centre: 1/2 + (centre - point) / size on each axis, here in
                 * 1/16 pixel; the nearest of the point positions is the one covering the pixel. */
                int64_t cx = 16 * (int64_t)x + 8, cy = 16 * (int64_t)y + 8, span = 16 * point_size, best = 0;
                for (int i = 1; i < 3; i++)
                    if (magnitude(cx - point_x[1][i]) + magnitude(cy - point_y[1][i]) <
                        magnitude(cx - point_x[1][best]) + magnitude(cy - point_y[1][best]))
                        best = i;
                int64_t s = span / 2 + cx - point_x[1][best], t = span / 2 + cy - point_y[1][best];
                if (!top) t = span - t;
                int64_t want[2] = {(510 * s + span) / (2 * span), (510 * t + span) / (2 * span)};
                count++;
                wrong += magnitude(texel[0] - want[0]) > 1 || magnitude(texel[1] - want[1]) > 1 || texel[2] != 0 || texel[3] != 255;
            }
        report(top ? "each pixel (s, t) of its point, t from the top" : "each pixel (s, 1 - t) of its point", wrong,
               count);
    }
    set(SET_POINT_SPRITE, 0);
    set(SET_POINT_SIZE, F_1);

    print("-- back faces culled: the triangle drawn under one front-face winding, and under the other with FLIP_Y\n");
    put_vertices(triangle, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    set(OGL_SET_CULL, 1);
    set(OGL_SET_CULL_FACE, OGL_BACK);
    int drawn[2][2];
    for (int flip = 0; flip < 2; flip++)
        for (int ccw = 0; ccw < 2; ccw++) {
            fill_target(background);
            set(SET_WINDOW_ORIGIN, flip ? WINDOW_ORIGIN_FLIP_Y : 0);
            set(OGL_SET_FRONT_FACE, ccw ? OGL_CCW : OGL_CW);
            draw_arrays(3, 0);
            run("draw");
            uint32_t whole = wrong_pixels(in_triangle, triangle_colour, background, &count);
            uint32_t none = wrong_pixels(in_triangle, background, background, &count);
            check(whole == 0 || none == 0, "the triangle is drawn whole or not at all");
            drawn[flip][ccw] = whole == 0;
        }
    set(OGL_SET_CULL, 0);
    set(SET_WINDOW_ORIGIN, 0);
    set(OGL_SET_FRONT_FACE, OGL_CCW);
    run("state back");
    check(drawn[0][0] != drawn[0][1], "drawn under exactly one winding");
    check(drawn[1][0] == drawn[0][1] && drawn[1][1] == drawn[0][0], "FLIP_Y swaps the windings");
    print("   drawn as front face: ");
    print(drawn[0][1] ? "CCW" : "CW");
    print(", with FLIP_Y: ");
    print(drawn[1][1] ? "CCW" : "CW");
    print("\n");

    print("-- two instances: BEGIN FIRST, then SUBSEQUENT, with a per-instance offset stream\n");
    fill_target(background);
    put_vertices(small, 3);
    instance_offsets();
    use_programs(OFFSET_VS, PERSPECTIVE_PS);
    draw_arrays(3, 0);
    draw_arrays(3, INSTANCE_SUBSEQUENT);
    run("draws");
    const uint8_t small_colour[4] = {204, 51, 153, 255};
    wrong = wrong_pixels(in_instances, small_colour, background, &count);
    report("the triangle and its copy 16 pixels right and 4 down", wrong, count);

    print("-- additive blending (ONE, ONE, ADD) onto the background\n");
    const uint8_t sum[4] = {51 + 0x11, 153 + 0x22, 255, 255};
    blended_triangle("covered pixels hold the sums (68, 187, 255, 255), clamped", PERSPECTIVE_PS, OGL_ONE, OGL_ONE,
                     sum);

    print("-- a write mask of R and A\n");
    fill_target(background);
    set(SET_CT_WRITE, 0x1001);
    draw_arrays(3, 0);
    set(SET_CT_WRITE, 0x1111);
    run("draw");
    const uint8_t masked[4] = {51, 0x22, 0x33, 255};
    wrong = wrong_pixels(in_triangle, masked, background, &count);
    report("covered pixels take R and A, G and B keep the background's", wrong, count);

    print("-- logic ops on the target's bits: XOR with the background, then COPY_INVERTED\n");
    fill_target(background);
    set(SET_LOGIC_OP, 1);
    set(SET_LOGIC_OP_FUNC, OGL_XOR);
    draw_arrays(3, 0);
    run("draw");
    const uint8_t xored[4] = {51 ^ 0x11, 153 ^ 0x22, 204 ^ 0x33, 255 ^ 0x44};
    wrong = wrong_pixels(in_triangle, xored, background, &count);
    report("covered pixels hold the colour XOR the background", wrong, count);
    fill_target(background);
    set(SET_LOGIC_OP_FUNC, OGL_COPY_INVERTED);
    draw_arrays(3, 0);
    set(SET_LOGIC_OP, 0);
    run("draw");
    const uint8_t inverted[4] = {255 - 51, 255 - 153, 255 - 204, 0};
    wrong = wrong_pixels(in_triangle, inverted, background, &count);
    report("covered pixels hold the colour's bits inverted", wrong, count);

    print("-- no render target: the triangle's samples still pass and count, over viewport 0's area\n");
    set(SET_CT_SELECT, 0);
    set(SET_ZPASS_PIXEL_COUNT, 1);
    set(CLEAR_REPORT_VALUE, 0x01);
    put_vertices(triangle, 3);
    use_programs(PASS_VS, PERSPECTIVE_PS);
    draw_arrays(3, 0);
    report_counter(REPORT_ZPASS_PIXEL_CNT64, 0);
    set(SET_ZPASS_PIXEL_COUNT, 0);
    set(SET_CT_SELECT, 1);
    run("draw");
    uint32_t covered = 0;
    for (uint32_t y = 0; y < HEIGHT; y++)
        for (uint32_t x = 0; x < WIDTH; x++) covered += (uint32_t)in_triangle(x, y);
    check(reported(0) == covered, "ZPASS_PIXEL_CNT64 counts the triangle's pixels with no target bound");
    print("   samples passed ");
    print_u64(reported(0));
    print(" of ");
    print_u64(covered);
    print("\n");

    lines();
    polygon_modes();
    viewports();
    targets_without_alpha();
    targets_with_alpha_elsewhere();
    raw_target();
    srgb_target();
    one_texture_two_slots();
    dual_source_blending();
    single_write_control();
    unwritten_components();
    quads_and_polygons();
    inline_indices();
    polygon_stipple();
    window_clip();
    user_clip_planes();
    conditional_rendering();
    indirect_draws();
    volume_and_array_targets();
    multisampled_target();
    stream_output();
    geometry_stream_output();
    geometry_streams();
    derivatives();
    pixel_votes();
    vertex_votes();
    depth_and_stencil();
    depth_clamp();
    depth_range_and_invariance();
    polygon_offset_and_depth_bounds();
    alpha_test();
    textures();
    global_memory_from_pixels();
    surface_from_pixels();
    ps_saturate();
    print("-- interpolation away from the pixel centre: IPA .OFFSET (+0.25, -0.25) and .CENTROID\n");
    copy_program(LOCATIONS_PS, locations_ps, locations_ps_end);
    interpolation_locations(PASS_VS, LOCATIONS_PS);
    print("-- a pixel program reading the primitive's number (a[0x60])\n");
    copy_program(PRIMITIVE_PS, primitive_ps, primitive_ps_end);
    primitive_ids(PASS_VS, PRIMITIVE_PS);
    ampere_class(nv, (void *)(heap + 0x600000));

    nv_close(nv, gpu.channel);
    svc_close_handle(nv);
    print("gpu-draw: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
