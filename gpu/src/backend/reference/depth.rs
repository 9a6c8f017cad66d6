//! The reference back end's depth/stencil attachment: the zeta target's texels as the host format's aspects,
//! and back. Each guest format draws on the host format with the same depth bits where the device has it
//! (D24 natively: behaviour 1.7), else on D32_SFLOAT(_S8_UINT), to which 24-bit depth converts exactly both ways
//! (d / (2^24 - 1) rounded to FP32 is within half a step of d).

use super::{NAME, ReferenceBackend};
use crate::backend::{BackendError, DepthStencil, StencilFace, StencilOp};
use crate::texture::format::{DepthFormat, set_texel_bits, texel_bits};
use crate::vulkan::{DepthAttachment, compare_op};
use ash::vk;

/// A zeta target's texels as a host format's aspects: depth (2 or 4 bytes a texel), stencil (1).
pub(super) struct HostDepth {
    pub format: vk::Format,
    pub depth: Vec<u8>,
    pub stencil: Vec<u8>,
}

const D24_MAX: u32 = (1 << 24) - 1;

fn stencil_op(op: StencilOp) -> vk::StencilOp {
    use vk::StencilOp as S;
    match op {
        StencilOp::Keep => S::KEEP,
        StencilOp::Zero => S::ZERO,
        StencilOp::Replace => S::REPLACE,
        StencilOp::IncrementClamp => S::INCREMENT_AND_CLAMP,
        StencilOp::DecrementClamp => S::DECREMENT_AND_CLAMP,
        StencilOp::Invert => S::INVERT,
        StencilOp::IncrementWrap => S::INCREMENT_AND_WRAP,
        StencilOp::DecrementWrap => S::DECREMENT_AND_WRAP,
    }
}

fn stencil_state(face: &StencilFace) -> vk::StencilOpState {
    vk::StencilOpState {
        fail_op: stencil_op(face.fail),
        pass_op: stencil_op(face.pass),
        depth_fail_op: stencil_op(face.depth_fail),
        compare_op: compare_op(face.compare),
        compare_mask: u32::from(face.compare_mask),
        write_mask: u32::from(face.write_mask),
        reference: u32::from(face.reference),
    }
}

/// Bits `low..low + width` of a texel.
fn field(texel: u128, (low, width): (u32, u32)) -> u32 {
    (texel >> low & ((1u128 << width) - 1)) as u32
}

impl ReferenceBackend {
    fn supports_depth_format(&self, format: vk::Format) -> bool {
        let wanted = vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT
            | vk::FormatFeatureFlags::TRANSFER_SRC
            | vk::FormatFeatureFlags::TRANSFER_DST;
        self.device.format_features(format).contains(wanted)
    }

    /// The host format a guest zeta format draws on. Multisampled 24-bit depth draws on the float format: its
    /// samples go in and out through shaders as FP32, which do not carry 24-bit depth exactly on every device
    /// (lavapipe's conversions are a step off for some values).
    fn host_depth_format(&self, format: &DepthFormat, multisampled: bool) -> Result<vk::Format, BackendError> {
        use vk::Format as F;
        let stencil = format.stencil.1 > 0;
        let wanted = match (format.depth.1, format.float_depth, stencil) {
            (0, _, _) => F::S8_UINT,
            (_, true, false) => F::D32_SFLOAT,
            (_, true, true) => F::D32_SFLOAT_S8_UINT,
            (16, false, _) => F::D16_UNORM,
            (_, false, false) => F::X8_D24_UNORM_PACK32,
            (_, false, true) => F::D24_UNORM_S8_UINT,
        };
        let fallback = match wanted {
            F::X8_D24_UNORM_PACK32 => F::D32_SFLOAT,
            F::D24_UNORM_S8_UINT | F::S8_UINT => F::D32_SFLOAT_S8_UINT,
            other => other,
        };
        let candidates = if multisampled { vec![fallback] } else { vec![wanted, fallback] };
        let host = candidates.into_iter().find(|&host| self.supports_depth_format(host));
        tracing::debug!(guest = format.name, ?host, "the depth target's host format");
        host.ok_or_else(|| BackendError::Unimplemented {
            backend: NAME,
            what: format!(
                "draw with a {} depth target on {}, which has neither {wanted:?} nor {fallback:?}",
                format.name,
                self.device.name()
            ),
        })
    }

    /// The zeta target's texels (`texels`, as `read_texels` gives them) as the host's aspects.
    pub(super) fn split_depth(
        &self,
        zeta: &DepthStencil,
        texels: &[u8],
        multisampled: bool,
    ) -> Result<HostDepth, BackendError> {
        Ok(split(&zeta.format, self.host_depth_format(&zeta.format, multisampled)?, texels))
    }

    /// The attachment the Vulkan draw takes for `zeta`, whose texels `host` holds.
    ///
    /// Polygon offset is Vulkan's depth bias, whose units are the host format's resolution r. Maxwell counts
    /// steps of 2^-n for an n-bit format; Vulkan lets r be 2^-n to twice that, so the units are scaled by what
    /// the device measures (`ComputeDevice::depth_bias_steps`). A D24 target held as D32_SFLOAT would count them in float
    /// steps (behaviour 1.7), so that case says so instead of drawing.
    pub(super) fn depth_attachment<'h>(
        &mut self,
        zeta: &DepthStencil,
        host: &'h HostDepth,
    ) -> Result<DepthAttachment<'h>, BackendError> {
        let bias = match zeta.bias {
            None => None,
            Some(bias) => {
                let host_float = matches!(host.format, vk::Format::D32_SFLOAT | vk::Format::D32_SFLOAT_S8_UINT);
                let steps = match (host_float, zeta.format.float_depth) {
                    (true, true) => 1.0,
                    (true, false) => {
                        return Err(BackendError::Unimplemented {
                            backend: NAME,
                            what: format!(
                                "polygon offset on a {} depth target, which {} holds as {:?} (its units would be \
                                 float steps)",
                                zeta.format.name,
                                self.device.name(),
                                host.format
                            ),
                        });
                    }
                    (false, _) => self.bias_steps(host.format)?,
                };
                Some([(f64::from(bias.units) / steps) as f32, bias.clamp, bias.slope_factor])
            }
        };
        Ok(DepthAttachment {
            format: host.format,
            depth: &host.depth,
            stencil: &host.stencil,
            depth_test: zeta.depth_test.map(compare_op),
            depth_write: zeta.depth_write,
            stencil_test: zeta.stencil.map(|faces| faces.map(|face| stencil_state(&face))),
            bias,
            // Vulkan takes bounds within 0..1 (without VK_EXT_depth_range_unrestricted); stored depths are there.
            bounds: zeta.bounds.map(|bounds| bounds.map(|bound| bound.clamp(0.0, 1.0))),
        })
    }

    /// The device's depth bias steps a unit on `format`, measured once.
    fn bias_steps(&mut self, format: vk::Format) -> Result<f64, BackendError> {
        if let Some(&steps) = self.bias_steps.get(&format) {
            return Ok(steps);
        }
        let steps = self.device.depth_bias_steps(format).map_err(|error| BackendError::Failed {
            backend: NAME,
            problem: format!("measuring depth bias on {format:?}: {error}"),
        })?;
        if !(0.5..=2.5).contains(&steps) {
            return Err(BackendError::Unimplemented {
                backend: NAME,
                what: format!(
                    "polygon offset on {}, whose depth bias moves {format:?} by {steps} steps a unit (Vulkan allows 1 \
                     to 2)",
                    self.device.name()
                ),
            });
        }
        tracing::info!(?format, steps, "the device's depth bias steps a unit");
        self.bias_steps.insert(format, steps);
        Ok(steps)
    }
}

/// Which of the guest zeta texels `texels` (of `format`) hold a depth outside `[min, max]` (each clamped to
/// 0..1, as the Vulkan test takes them).
pub(super) fn outside_bounds(format: &DepthFormat, texels: &[u8], [min, max]: [f32; 2]) -> Vec<bool> {
    let (min, max) = (min.clamp(0.0, 1.0), max.clamp(0.0, 1.0));
    texels
        .chunks_exact(format.bytes as usize)
        .map(|texel| {
            let raw = field(texel_bits(texel), format.depth);
            let depth = match (format.float_depth, format.depth.1) {
                // A stencil-only target has no depth to test.
                (_, 0) => return false,
                (true, _) => f32::from_bits(raw),
                (false, bits) => (f64::from(raw) / ((1u64 << bits) - 1) as f64) as f32,
            };
            !(min..=max).contains(&depth)
        })
        .collect()
}

/// Guest zeta texels of `format` as the aspects of `host`.
fn split(format: &DepthFormat, host: vk::Format, texels: &[u8]) -> HostDepth {
    let host_float = matches!(host, vk::Format::D32_SFLOAT | vk::Format::D32_SFLOAT_S8_UINT);
    let has_stencil =
        matches!(host, vk::Format::S8_UINT | vk::Format::D24_UNORM_S8_UINT | vk::Format::D32_SFLOAT_S8_UINT);
    let (mut depth, mut stencil) = (Vec::new(), Vec::new());
    for texel in texels.chunks_exact(format.bytes as usize) {
        let texel = texel_bits(texel);
        let raw = field(texel, format.depth);
        match (format.depth.1, host_float && !format.float_depth) {
            (0, _) => {}
            (16, _) => depth.extend_from_slice(&(raw as u16).to_le_bytes()),
            // 24-bit depth on a float format: its value, rounded once.
            (_, true) => depth.extend_from_slice(&(raw as f32 / D24_MAX as f32).to_bits().to_le_bytes()),
            _ => depth.extend_from_slice(&raw.to_le_bytes()),
        }
        if has_stencil {
            stencil.push(if format.stencil.1 > 0 { field(texel, format.stencil) as u8 } else { 0 });
        }
    }
    HostDepth { format: host, depth, stencil }
}

/// `before` (guest zeta texels of `format`) with the depth and stencil a draw left in the aspects of `host`.
pub(super) fn merge(format: &DepthFormat, host: vk::Format, before: &[u8], depth: &[u8], stencil: &[u8]) -> Vec<u8> {
    let host_float = matches!(host, vk::Format::D32_SFLOAT | vk::Format::D32_SFLOAT_S8_UINT);
    let depth_bytes = if host == vk::Format::D16_UNORM { 2 } else { 4 };
    let bytes = format.bytes as usize;
    let mut after = before.to_vec();
    for (index, texel) in after.chunks_exact_mut(bytes).enumerate() {
        let mut value = texel_bits(texel);
        let mut put = |(low, width): (u32, u32), field: u32| {
            let mask = ((1u128 << width) - 1) << low;
            value = (value & !mask) | (u128::from(field) << low & mask);
        };
        if format.depth.1 > 0 {
            let at = index * depth_bytes;
            let mut raw = [0u8; 4];
            raw[..depth_bytes].copy_from_slice(&depth[at..at + depth_bytes]);
            let raw = u32::from_le_bytes(raw);
            let guest = if host_float && !format.float_depth {
                (f32::from_bits(raw).clamp(0.0, 1.0) as f64 * f64::from(D24_MAX)).round() as u32
            } else {
                raw
            };
            put(format.depth, guest);
        }
        if format.stencil.1 > 0 && !stencil.is_empty() {
            put(format.stencil, u32::from(stencil[index]));
        }
        set_texel_bits(texel, value);
    }
    after
}

/// A depth in [0, 1] as a UNORM of `bits` bits, by the Vulkan specification's conversion from floating point to
/// normalized fixed point (rounded to nearest): what a depth clear writes on a device that cannot clear a UNORM
/// depth format of that width (AMD's lack D24).
pub(super) fn unorm_depth(depth: f32, bits: u32) -> u32 {
    (f64::from(depth.clamp(0.0, 1.0)) * f64::from((1u32 << bits) - 1)).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CPU's depth conversion for clears gives what the device's clears give, for D16 and X8_D24, on depths
    /// whose scaled value lies clear of a rounding tie (where the specification leaves the direction open).
    #[test]
    fn depth_clears_converted_on_the_cpu_match_the_device() {
        let device = crate::vulkan::ComputeDevice::shared_for_tests();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut depths = vec![0.0f32, 1.0, 0.5, f32::from_bits(0x3eaa_aaab), 1e-7, 0.999_999_9];
        for _ in 0..24 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            depths.push((seed >> 40) as f32 / (1u64 << 24) as f32);
        }
        for (format, bits, bytes) in [(vk::Format::D16_UNORM, 16, 2), (vk::Format::X8_D24_UNORM_PACK32, 24, 4)] {
            if !device.supports_transfer_format(format) {
                continue;
            }
            for &depth in &depths {
                let scaled = f64::from(depth) * f64::from((1u32 << bits) - 1);
                if (scaled.fract() - 0.5).abs() < 0.01 {
                    continue;
                }
                let texel = device.clear_depth_image(format, 1, 1, bytes, depth).unwrap();
                let mut word = [0u8; 4];
                word[..bytes as usize].copy_from_slice(&texel[..bytes as usize]);
                let expected = u32::from_le_bytes(word) & ((1u32 << bits) - 1);
                assert_eq!(unorm_depth(depth, bits), expected, "{format:?}, depth {depth}");
            }
        }
    }

    /// Every guest format's depth and stencil come back as they went, on the host format it draws on and on the
    /// float fallback: 24-bit depth survives FP32 (d / (2^24 - 1) rounded is within half a step of d).
    #[test]
    fn zeta_texels_survive_the_host_formats() {
        use vk::Format as F;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        };
        for format in crate::texture::format::DEPTH_FORMATS {
            let hosts: &[vk::Format] = match (format.depth.1, format.float_depth, format.stencil.1 > 0) {
                (0, _, _) => &[F::S8_UINT, F::D32_SFLOAT_S8_UINT],
                (_, true, false) => &[F::D32_SFLOAT],
                (_, true, true) => &[F::D32_SFLOAT_S8_UINT],
                (16, false, _) => &[F::D16_UNORM],
                (_, false, false) => &[F::X8_D24_UNORM_PACK32, F::D32_SFLOAT],
                (_, false, true) => &[F::D24_UNORM_S8_UINT, F::D32_SFLOAT_S8_UINT],
            };
            for &host in hosts {
                // Float depth stays within 0..1 (a draw writes no other), as FP32 bits of one.
                let texels: Vec<u8> = (0..256 * format.bytes).map(|_| next()).collect();
                let texels = if format.float_depth {
                    texels
                        .chunks_exact(format.bytes as usize)
                        .flat_map(|texel| {
                            let mut texel = texel.to_vec();
                            let value = f32::from(texel[0]) / 255.0;
                            texel[..4].copy_from_slice(&value.to_bits().to_le_bytes());
                            texel
                        })
                        .collect()
                } else {
                    texels
                };
                let split = split(format, host, &texels);
                let merged = merge(format, host, &texels, &split.depth, &split.stencil);
                assert_eq!(merged, texels, "{} on {host:?}", format.name);
            }
        }
    }
}
