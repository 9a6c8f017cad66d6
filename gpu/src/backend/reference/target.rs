//! A render target's format and blend state as the host's: the guest's blend equations as Vulkan's, fitted to
//! targets without alpha (destination alpha reads 1.0) and to targets that keep alpha in the host's R; and the Z
//! and O formats' unused bits, which the host's alpha carries as a mark of the texels a draw writes.

use super::draw::unimplemented;
use super::host_swizzle;
use crate::backend::{BackendError, BlendState};
use crate::texture::format::{ColorFormat, NumberKind, set_texel_bits, texel_bits};
use crate::vulkan::Blend;
use ash::vk;

/// A blend coefficient (OGL or D3D value) as Vulkan's.
fn blend_factor(value: u32) -> Option<vk::BlendFactor> {
    use vk::BlendFactor as F;
    Some(match value {
        0x4000 | 1 => F::ZERO,
        0x4001 | 2 => F::ONE,
        0x4300 | 3 => F::SRC_COLOR,
        0x4301 | 4 => F::ONE_MINUS_SRC_COLOR,
        0x4302 | 5 => F::SRC_ALPHA,
        0x4303 | 6 => F::ONE_MINUS_SRC_ALPHA,
        0x4304 | 7 => F::DST_ALPHA,
        0x4305 | 8 => F::ONE_MINUS_DST_ALPHA,
        0x4306 | 9 => F::DST_COLOR,
        0x4307 | 0xa => F::ONE_MINUS_DST_COLOR,
        0x4308 | 0xb => F::SRC_ALPHA_SATURATE,
        0xc001 | 0xe => F::CONSTANT_COLOR,
        0xc002 | 0xf => F::ONE_MINUS_CONSTANT_COLOR,
        0xc003 => F::CONSTANT_ALPHA,
        0xc004 => F::ONE_MINUS_CONSTANT_ALPHA,
        0xc900 | 0x10 => F::SRC1_COLOR,
        0xc901 | 0x11 => F::ONE_MINUS_SRC1_COLOR,
        0xc902 | 0x12 => F::SRC1_ALPHA,
        0xc903 | 0x13 => F::ONE_MINUS_SRC1_ALPHA,
        _ => return None,
    })
}

fn blend_op(value: u32) -> Option<vk::BlendOp> {
    use vk::BlendOp as O;
    Some(match value {
        0x8006 | 1 => O::ADD,
        0x800a | 2 => O::SUBTRACT,
        0x800b | 3 => O::REVERSE_SUBTRACT,
        0x8007 | 4 => O::MIN,
        0x8008 | 5 => O::MAX,
        _ => return None,
    })
}

/// A target's blending (`None`: its texels take the program's outputs). Integer targets do not blend, whatever
/// SET_BLEND says (OpenGL's rule, which Vulkan's formats keep). On a target without alpha, destination alpha
/// reads 1.0 (Maxwell behaviour 5.12): the factors that read it become the constants they then are, as the host's
/// alpha holds the unused bits. A target of alpha alone, held in the host's R (`host_swizzle`), blends by the
/// alpha equation, its factors reading the host's colour where they mean alpha; other formats whose channels the
/// host holds elsewhere do not blend.
pub(super) fn blend(state: Option<&BlendState>, format: &ColorFormat) -> Result<Option<Blend>, BackendError> {
    use vk::BlendFactor as F;
    let Some(state) = state.filter(|_| format.kind.number_kind() == NumberKind::Float) else { return Ok(None) };
    let Blend { color, alpha } = guest_blend(state)?;
    let without_destination_alpha = |(s, d, o): (F, F, vk::BlendOp)| {
        let factor = |factor: F| match factor {
            F::DST_ALPHA => F::ONE,
            // min(source alpha, 1 - 1)
            F::ONE_MINUS_DST_ALPHA | F::SRC_ALPHA_SATURATE => F::ZERO,
            other => other,
        };
        (factor(s), factor(d), o)
    };
    match host_swizzle(format) {
        [0, 1, 2, 3] if format.has_alpha() => Ok(Some(Blend { color, alpha })),
        [0, 1, 2, 3] => {
            Ok(Some(Blend { color: without_destination_alpha(color), alpha: without_destination_alpha(alpha) }))
        }
        [3, 3, 3, 3] => {
            // The alpha equation on the host's R: factors that read alpha read R, which is alpha (and the
            // source's R, G, B and A all are).
            let on_red = |factor: F| match factor {
                F::DST_ALPHA => Ok(F::DST_COLOR),
                F::ONE_MINUS_DST_ALPHA => Ok(F::ONE_MINUS_DST_COLOR),
                F::SRC_ALPHA_SATURATE => Ok(F::ONE),
                F::CONSTANT_COLOR => Ok(F::CONSTANT_ALPHA),
                F::ONE_MINUS_CONSTANT_COLOR => Ok(F::ONE_MINUS_CONSTANT_ALPHA),
                F::SRC1_COLOR | F::SRC1_ALPHA | F::ONE_MINUS_SRC1_COLOR | F::ONE_MINUS_SRC1_ALPHA => {
                    Err(unimplemented(format!("dual-source blending into a {} target", format.name)))
                }
                other => Ok(other),
            };
            let (s, d, o) = alpha;
            let alpha = (on_red(s)?, on_red(d)?, o);
            Ok(Some(Blend { color: alpha, alpha }))
        }
        _ => Err(unimplemented(format!("blending into a {} target", format.name))),
    }
}

/// The guest's blend equations as Vulkan's, factor for factor.
pub(super) fn guest_blend(state: &BlendState) -> Result<Blend, BackendError> {
    let equation =
        |[op, source, destination]: [u32; 3]| match (blend_factor(source), blend_factor(destination), blend_op(op)) {
            (Some(s), Some(d), Some(o)) => Ok((s, d, o)),
            _ => Err(unimplemented(format!("blend op {op:#x} with coefficients {source:#x}, {destination:#x}"))),
        };
    Ok(Blend { color: equation(state.color)?, alpha: equation(state.alpha)? })
}

/// `before`'s texels with their unused bits (a Z or O format's, the host's alpha) all ones.
pub(super) fn marked_unused(format: &ColorFormat, before: &[u8]) -> Vec<u8> {
    let mut marked = before.to_vec();
    for texel in marked.chunks_exact_mut(format.bytes as usize) {
        set_texel_bits(texel, texel_bits(texel) | format.unused_bits());
    }
    marked
}

/// A Z or O target's blending: its colour as the guest's (a plain write without blending), its alpha (the
/// unused bits) zeros wherever a fragment writes, so that `filled_unused` can tell the texels written.
pub(super) fn fills_unused(blend: Option<Blend>) -> Blend {
    use vk::{BlendFactor as F, BlendOp as O};
    let color = blend.map_or((F::ONE, F::ZERO, O::ADD), |blend| blend.color);
    Blend { color, alpha: (F::ZERO, F::ZERO, O::ADD) }
}

/// A Z or O target's texels after a draw: where the draw wrote (its unused bits came back zeros from ones)
/// they are filled as the format says, elsewhere they are what memory held (`before`'s).
pub(super) fn filled_unused(format: &ColorFormat, before: &[u8], after: &[u8]) -> Vec<u8> {
    let bytes = format.bytes as usize;
    let unused = format.unused_bits();
    let mut filled = after.to_vec();
    for (texel, old) in filled.chunks_exact_mut(bytes).zip(before.chunks_exact(bytes)) {
        let new = texel_bits(texel);
        let bits = match new & unused {
            0 => format.fill_unused(new),
            _ => (new & !unused) | (texel_bits(old) & unused),
        };
        set_texel_bits(texel, bits);
    }
    filled
}
