//! What the texture instructions both ISAs have (TEX, TLD, TLD4, TXD, TXQ) mean in IR, once `sass::texture` has
//! read an instruction's fields (Maxwell's forms: `sm5x/texture.rs`): the operands in the order both ISAs read them
//! (Mesa's NAK builds one source list for SM50 and SM70 alike), the handle, and where the results go.

use super::ir::{BinOp, Cmp, HandlePart, Lod, Op, Round, TextureBinding, TextureDim, TextureHandle, TextureRef, Value};
use super::lower::Lower;
use crate::sass::texture::{HandleSource, Level, Operation, TextureInstruction};

/// AOFFI's texel offsets of TEX and TLD: signed 4-bit x, y and z in bits 3:0, 7:4 and 11:8 (ptxas packs them
/// with `BFI ..., 0x404, ...`; TLD4's are 6-bit, in bytes).
fn texel_offsets(packed: u32) -> [i8; 3] {
    [0, 1, 2].map(|k| ((packed << (28 - 4 * k)) as i32 >> 28) as i8)
}

impl Lower<'_> {
    /// Carries out `t`: its results into its destinations. Err: why it cannot be translated.
    pub(super) fn texture_instruction(&mut self, t: &TextureInstruction) -> Result<(), String> {
        let handle = self.texture_handle(t.handle);
        let values = match t.operation {
            Operation::Read { .. } => {
                let (texel, valid) = self.texture_read(handle, t)?;
                let values = self.components(texel, t.mask);
                match valid {
                    Some(valid) => {
                        let zero = self.const32(0);
                        values.into_iter().map(|value| self.select(valid, value, zero)).collect()
                    }
                    None => values,
                }
            }
            Operation::Gather { component, offset_registers, compare } => {
                self.texture_gather(handle, t, component, offset_registers, compare)?
            }
            Operation::Gradients => {
                let texel = self.texture_gradients(handle, t)?;
                self.components(texel, t.mask)
            }
            Operation::Size => {
                let level = self.reg(t.sources[0]);
                let size = self.texture_size(handle, level);
                self.components(size, t.mask)
            }
        };
        if t.half {
            self.write_halves(values, t.destinations[0], t.destinations[2]);
        } else {
            self.write_in_order(values, &t.destinations);
        }
        if let Some(fault) = t.fault {
            let faulted = self.bool(false);
            self.set_pred(fault, faulted);
        }
        Ok(())
    }

    /// The handle as the IR names it: a bindless register's traced back to the constant-buffer words it was made
    /// of in its block (`Lower::traced_handle`), or where it is traced nowhere, the register's value indexing the
    /// pools when the program runs.
    pub(super) fn texture_handle(&mut self, source: HandleSource) -> HandleUse {
        let handle = match source {
            HandleSource::Constant { bank, offset } => {
                TextureHandle::Traced([Some(HandlePart { bank, offset, mask: u32::MAX, shift: 0 }), None])
            }
            HandleSource::Slot(offset) => TextureHandle::Bound(offset),
            HandleSource::Register(register) => {
                let value = self.reg(register);
                return match self.traced_handle(value) {
                    Some(parts) => HandleUse { handle: TextureHandle::Traced(parts), value: None },
                    None => HandleUse { handle: TextureHandle::Pool, value: Some(value) },
                };
            }
        };
        HandleUse { handle, value: None }
    }

    /// A TEX or TLD (`t.operation` is a `Read`): the texel, and for a checked level when the level exists (else
    /// the results are zeros).
    fn texture_read(&mut self, handle: HandleUse, t: &TextureInstruction) -> Result<(Value, Option<Value>), String> {
        let Operation::Read { fetch, level: mode, offsets, last, checked_level } = t.operation else {
            unreachable!("texture_instruction reads only through texture_read")
        };
        let (dim, array, sources) = (t.dim, t.array, &t.sources);
        let count = dim.coordinates();
        let layer = array.then(|| self.reg(sources[0]));
        let first = usize::from(array);
        let coordinates: Vec<Value> = sources[first..first + count].iter().map(|&r| self.reg(r)).collect();
        let mut rest = sources[first + count..].iter().copied();
        let level_register = matches!(mode, Level::Bias | Level::Explicit).then(|| rest.next()).flatten();
        let offsets_register = offsets.then(|| rest.next()).flatten();
        let last_register = last.then(|| rest.next()).flatten();
        if fetch {
            // Offsets move a fetch's integer coordinates, whether or not they are known when translating.
            let coordinates = match offsets_register {
                Some(register) => {
                    let packed = self.reg(register);
                    self.offset_coordinates(coordinates, packed)
                }
                None => coordinates,
            };
            if let Some(sample) = last_register {
                if (dim, array) != (TextureDim::D2, false) {
                    return Err("multisample fetches other than 2D".into());
                }
                let sample = self.reg(sample);
                return Ok((self.fetch_sample(handle, coordinates, sample), None));
            }
            let fetch = TextureBinding { fetch: handle.value.is_none(), ..binding(handle, dim, array) };
            let texture = self.bind_texture(fetch, handle);
            let mut level = match level_register {
                Some(register) => self.reg(register),
                None => self.const32(0),
            };
            // A checked level past the last gives zeros; the fetch itself reads the last (Vulkan leaves a fetch
            // past it undefined).
            let mut valid = None;
            if checked_level {
                let zero = self.const32(0);
                let size = self.texture_size(handle, zero);
                let levels = self.op(Op::Component(size, 3));
                valid = Some(self.cmp(Cmp::LtU, level, levels));
                let one = self.const32(1);
                let last = self.bin(BinOp::Sub, levels, one);
                level = self.bin(BinOp::MinU, level, last);
            }
            return Ok((self.op(Op::TextureFetch { texture, coordinates, layer, level }), valid));
        }
        let offset = match offsets_register {
            Some(_) if dim == TextureDim::Cube => return Err("offsets on a cube".into()),
            Some(register) => {
                let packed = self.reg(register);
                match self.known_constant(packed) {
                    Some(bits) => Some(texel_offsets(bits)),
                    None => {
                        return Err(
                            "offsets computed at run time: Vulkan takes a sample's offsets only as constants".into()
                        );
                    }
                }
            }
            None => None,
        };
        let lod = match (mode, level_register) {
            (Level::Implicit, _) => Lod::Implicit,
            (Level::Zero, _) => Lod::Zero,
            (Level::Bias, Some(register)) => Lod::Bias(self.reg(register)),
            (Level::Explicit, Some(register)) => Lod::Level(self.reg(register)),
            _ => unreachable!("operand_counts gives a level register to Bias and Explicit"),
        };
        let reference = last_register.map(|register| self.reg(register));
        let binding = TextureBinding { depth_compare: reference.is_some(), ..binding(handle, dim, array) };
        let texture = self.bind_texture(binding, handle);
        Ok((self.op(Op::TextureSample { texture, coordinates, layer, lod, reference, offset }), None))
    }

    /// A TLD4: the components the mask chooses, in order.
    fn texture_gather(
        &mut self,
        handle: HandleUse,
        t: &TextureInstruction,
        component: u8,
        offset_registers: usize,
        compare: bool,
    ) -> Result<Vec<Value>, String> {
        let (dim, array, sources, mask) = (t.dim, t.array, &t.sources, t.mask);
        if !matches!(dim, TextureDim::D2 | TextureDim::Cube) {
            return Err("1D and 3D gathers, which SPIR-V lacks".into());
        }
        if offset_registers > 0 && dim == TextureDim::Cube {
            return Err("offsets on a cube, which SPIR-V forbids".into());
        }
        let layer = array.then(|| self.reg(sources[0]));
        let first = usize::from(array);
        let count = dim.coordinates();
        let coordinates: Vec<Value> = sources[first..first + count].iter().map(|&r| self.reg(r)).collect();
        let rest = &sources[first + count..];
        let reference = compare.then(|| self.reg(rest[offset_registers]));
        let binding = TextureBinding {
            depth_compare: reference.is_some(),
            gather_offsets: offset_registers > 0,
            ..binding(handle, dim, array)
        };
        let texture = self.bind_texture(binding, handle);
        if offset_registers < 2 {
            let offsets = (offset_registers == 1).then(|| self.reg(rest[0]));
            let texels = self.op(Op::TextureGather { texture, coordinates, layer, component, reference, offsets });
            return Ok(self.components(texels, mask));
        }
        // PTP: result component k is the (i0, j0) texel (component 3) of the footprint moved by offset pair k,
        // as GLSL's textureGatherOffsets defines it. Pair k is a byte pair of the offset register k / 2, the low
        // half for even k, in AOFFI's layout (x in bits 5:0, y in 13:8): one gather with AOFFI offsets per
        // component.
        let words = [self.reg(rest[0]), self.reg(rest[1])];
        let sixteen = self.const32(16);
        Ok((0..4u8)
            .filter(|k| mask >> k & 1 == 1)
            .map(|k| {
                let word = words[usize::from(k / 2)];
                let pair = if k % 2 == 1 { self.bin(BinOp::ShrU, word, sixteen) } else { word };
                let coordinates = coordinates.clone();
                let gather =
                    Op::TextureGather { texture, coordinates, layer, component, reference, offsets: Some(pair) };
                let texels = self.op(gather);
                self.op(Op::Component(texels, 3))
            })
            .collect())
    }

    /// TXD: a sample at the level the explicit derivatives give: the coordinates, for arrays a word with the
    /// layer in bits 15:0, then per coordinate d/dx and d/dy (Mesa's `handleTXD` and yuzu agree; Ryujinx reads
    /// all of d/dx first; Maxwell behaviour 2.13; ptxas fills sm_86's TXD so too). 1D and 2D only, as Mesa emits
    /// it (3D and cubes it computes by hand, as ptxas does for sm_86).
    fn texture_gradients(&mut self, handle: HandleUse, t: &TextureInstruction) -> Result<Value, String> {
        let (dim, array) = (t.dim, t.array);
        if !matches!(dim, TextureDim::D1 | TextureDim::D2) {
            return Err("3D and cube targets".into());
        }
        let count = dim.coordinates();
        let values: Vec<Value> = t.sources[..count].iter().map(|&r| self.reg(r)).collect();
        let layer = array.then(|| self.reg(t.sources[count]));
        let derivatives = &t.sources[count + usize::from(array)..];
        // 1D: the one coordinate's derivatives stand for both.
        let derivative =
            |l: &mut Self, coordinate: usize, y: usize| l.reg(derivatives[2 * coordinate.min(count - 1) + y]);
        let x = [derivative(self, 0, 0), derivative(self, 1, 0)];
        let y = [derivative(self, 0, 1), derivative(self, 1, 1)];
        let texture = self.bind_texture(binding(handle, dim, array), handle);
        let lod = Lod::Gradients { x, y };
        Ok(self.op(Op::TextureSample { texture, coordinates: values, layer, lod, reference: None, offset: None }))
    }

    /// TXQ TEX_HEADER_DIMENSION: the size of level `level` of the texture as its header shapes it (nxgpucatch's
    /// hardware tests: `Op::TextureQuery`).
    /// Through a pool, the query takes the shape of the program's other uses of the same handle: its binding is
    /// settled once the program is lowered (`Lower::settle_pool_queries`).
    pub(super) fn texture_size(&mut self, handle: HandleUse, level: Value) -> Value {
        if let Some(value) = handle.value {
            let texture = TextureRef { binding: UNSETTLED, handle: Some(value) };
            let query = self.op(Op::TextureQuery { texture, level });
            let origin = self.origin(value);
            self.pools.queries.push((query, origin));
            return query;
        }
        let binding = TextureBinding { query: true, ..binding(handle, TextureDim::D2, false) };
        let texture = self.bind_texture(binding, handle);
        self.op(Op::TextureQuery { texture, level })
    }

    /// TMML: the level of detail a sample at the coordinates from register `first` on (after the layer, for
    /// arrays, which the query ignores) would take: components 0 and 1 as `Op::TextureLodQuery` gives them, by
    /// the write mask to `destinations`. Components 2 and 3, which no source describes, are refused. Both ISAs
    /// read their operands alike (SM86's as its TEX does; ptxas never emits TMML, so no hardware run shows it).
    pub(super) fn lod_query(&mut self, query: LodQuery, destinations: &[u64; 4]) -> Result<(), String> {
        if query.mask & 0b1100 != 0 {
            return Err("components 2 and 3, which no source describes".into());
        }
        let handle = self.texture_handle(query.source);
        let first = query.first + u64::from(query.array);
        let coordinates: Vec<Value> = (0..query.dim.coordinates() as u64).map(|k| self.reg(first + k)).collect();
        let texture = self.bind_texture(binding(handle, query.dim, query.array), handle);
        let lod = self.op(Op::TextureLodQuery { texture, coordinates });
        self.write_components(lod, query.mask, destinations);
        Ok(())
    }

    /// `coordinates` (integers) moved by the texel offsets AOFFI packs into `packed` (see [`texel_offsets`]).
    pub(super) fn offset_coordinates(&mut self, coordinates: Vec<Value>, packed: Value) -> Vec<Value> {
        let down = self.const32(28);
        (0..coordinates.len() as u32)
            .zip(coordinates)
            .map(|(k, coordinate)| {
                let up = self.const32(28 - 4 * k);
                let field = self.bin(BinOp::Shl, packed, up);
                let offset = self.bin(BinOp::ShrS, field, down);
                self.bin(BinOp::Add, coordinate, offset)
            })
            .collect()
    }

    /// The op's reference to `binding`, through which `handle` reads it; a pool's shape is noted for the size
    /// queries of the same handle.
    pub(super) fn bind_texture(&mut self, binding: TextureBinding, handle: HandleUse) -> TextureRef {
        let reference = TextureRef { binding: self.program.texture(binding), handle: handle.value };
        if let Some(value) = handle.value
            && !binding.query
        {
            let origin = self.origin(value);
            self.pools.shapes.push((origin, binding.dim, binding.array));
        }
        reference
    }

    /// Gives each size query through a pool the shape of another use of its handle (a TXQ has no target, and a
    /// pool's entries have no one shape): a handle's value seen through the block's register writes
    /// (`Lower::origin`) that a sample, fetch or gather of a known shape also reads. Err: a query whose handle
    /// nothing else reads.
    pub(super) fn settle_pool_queries(&mut self) -> Result<(), String> {
        for (query, origin) in std::mem::take(&mut self.pools.queries) {
            let Some(&(_, dim, array)) = self.pools.shapes.iter().find(|(shaped, ..)| *shaped == origin) else {
                return Err("a size query (TXQ) through a handle known only at run time that no sample or fetch \
                            in its block also reads: its shape is unknown"
                    .into());
            };
            // A pool binding's images have the binding's own shape: the query shares the plain binding.
            let pool = HandleUse { handle: TextureHandle::Pool, value: None };
            let settled = self.program.texture(binding(pool, dim, array));
            let Some(Op::TextureQuery { texture, .. }) = self.program.op_mut(query) else {
                unreachable!("texture_size noted a size query")
            };
            texture.binding = settled;
        }
        Ok(())
    }

    /// A fetch of sample `sample` of texel `coordinates` of a multisampled 2D texture: layer `sample` of the
    /// array the host holds it as (`TextureBinding::multisample`).
    pub(super) fn fetch_sample(&mut self, handle: HandleUse, coordinates: Vec<Value>, sample: Value) -> Value {
        let binding = TextureBinding { multisample: true, ..binding(handle, TextureDim::D2, true) };
        let texture = self.bind_texture(binding, handle);
        let level = self.const32(0);
        self.op(Op::TextureFetch { texture, coordinates, layer: Some(sample), level })
    }

    /// The components of `texel` that `mask` (bit i: component i) chooses, in order.
    pub(super) fn components(&mut self, texel: Value, mask: u8) -> Vec<Value> {
        (0..4).filter(|c| mask >> c & 1 == 1).map(|c| self.op(Op::Component(texel, c))).collect()
    }

    /// The components of `texel` that `mask` chooses, in order, into `destinations`.
    pub(super) fn write_components(&mut self, texel: Value, mask: u8, destinations: &[u64; 4]) {
        let values = self.components(texel, mask);
        self.write_in_order(values, destinations);
    }

    /// FP16 results (Maxwell's TEXS and TLDS with F32 clear, TLD4S.F16; sm_86's .F16 forms): `values`
    /// converted to FP16 and packed in pairs, the first in the low half: the first pair to rd, the second to rd2
    /// (a missing high half 0); rd+1 and rd2+1 are not written. yuzu and Ryujinx agree, nxgpucatch's hardware
    /// tests and ptxas's code around TEXS.F16 and sm_86's TEX.F16 confirm the registers
    /// (`gpu/research/texture-f16.md`). The rounding (to nearest even, as ptxas converts with F2F.F16.F32) and
    /// the zero halves are unverified on hardware.
    pub(super) fn write_halves(&mut self, values: Vec<Value>, rd: u64, rd2: u64) {
        let halves: Vec<Value> =
            values.into_iter().map(|value| self.op(Op::F32ToHalf(Round::NearestEven, value))).collect();
        let zero = self.const32(0);
        let words: Vec<Value> =
            halves.chunks(2).map(|pair| self.pack_halves(pair[0], pair.get(1).copied().unwrap_or(zero))).collect();
        self.write_in_order(words, &[rd, rd2, 255, 255]);
    }

    /// `values` into the first of `destinations`, in order. Every value is read before this (a destination may
    /// be a source).
    pub(super) fn write_in_order(&mut self, values: Vec<Value>, destinations: &[u64; 4]) {
        for (value, &register) in values.into_iter().zip(destinations) {
            self.set_reg(register, value);
        }
    }
}

/// The binding of a texture of `dim` (`array`) whose handle is `handle`, read plainly (no compare, offsets or
/// samples).
pub(super) fn binding(handle: HandleUse, dim: TextureDim, array: bool) -> TextureBinding {
    let handle = handle.handle;
    TextureBinding {
        handle,
        dim,
        array,
        depth_compare: false,
        gather_offsets: false,
        multisample: false,
        query: false,
        fetch: false,
    }
}

/// A TMML's operands: where its handle is, the target, its first coordinate register (or the layer's) and its
/// write mask.
#[derive(Debug, Clone, Copy)]
pub(super) struct LodQuery {
    pub source: HandleSource,
    pub dim: TextureDim,
    pub array: bool,
    pub first: u64,
    pub mask: u8,
}

/// The binding of a size query through a pool until `Lower::settle_pool_queries` gives it its shape's.
const UNSETTLED: u16 = u16::MAX;

/// Where a texture instruction's handle comes from: what its binding says, and for a pool the handle's value.
#[derive(Debug, Clone, Copy)]
pub(super) struct HandleUse {
    pub handle: TextureHandle,
    pub value: Option<Value>,
}

/// The run-time handles' uses in a program being lowered, for `Lower::settle_pool_queries`: the shapes each
/// handle (its origin value) is read as, and the size queries (op, handle origin) that wait for one.
#[derive(Debug, Default)]
pub(super) struct PoolUses {
    shapes: Vec<(Value, TextureDim, bool)>,
    queries: Vec<(Value, Value)>,
}
