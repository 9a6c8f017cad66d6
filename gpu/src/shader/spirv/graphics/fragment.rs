//! The pixel program's prologue and epilogue, and the fixed-function tests added to it (stipple, window clip,
//! alpha test).

use super::{FragmentInterface, ONE, POINT_COORD, PointOrigin, Saturate, StageIo, WindowClip};
use crate::shader::sph::{Interpolation, attribute};
use crate::shader::spirv::Emitter;
use crate::texture::descriptor::Comparison;
use crate::texture::format::NumberKind;
use rspirv::spirv::{StorageClass, Word};

impl Emitter<'_> {
    /// FragCoord, front facing, the primitive's number, the layer and viewport index, the point sprite coordinate
    /// and the interpolated generics into the attribute space.
    pub(in crate::shader::spirv) fn fragment_prologue(&mut self, fragment: &FragmentInterface) {
        let StageIo::Fragment {
            frag_coord,
            front_facing,
            primitive_id,
            inputs,
            point_coord,
            layer,
            viewport_index,
            ..
        } = self.io()
        else {
            unreachable!("a fragment stage")
        };
        let (frag_coord, front_facing, primitive_id, inputs, point_coord) =
            (*frag_coord, *front_facing, *primitive_id, inputs.clone(), *point_coord);
        let flat_inputs = [(*layer, attribute::LAYER), (*viewport_index, attribute::VIEWPORT_INDEX)];
        self.fill_primitive_id(primitive_id, 1);
        for (input, address) in flat_inputs {
            let Some(input) = input else { continue };
            let int = self.b.type_int(32, 1);
            let value = self.b.load(int, None, input, None, []).expect("in a block");
            let bits = self.b.bitcast(self.t.u32, None, value).expect("in a block");
            self.store_attribute(false, address, bits);
        }
        let coord = self.store_float_components(frag_coord, 4, 4, attribute::POSITION);
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let front = self.b.load(self.t.bool, None, front_facing, None, []).expect("in a block");
        let (all, none) = (self.u32_const(u32::MAX), self.u32_const(0));
        let facing = self.b.select(u32_, None, front, all, none).expect("in a block");
        self.store_attribute(false, attribute::FRONT_FACING, facing);
        if let Some((input, origin)) = point_coord {
            let v2f32 = self.b.type_vector(f32_, 2);
            let st = self.b.load(v2f32, None, input, None, []).expect("in a block");
            for (c, address) in POINT_COORD.step_by(4).enumerate() {
                let mut value = self.b.composite_extract(f32_, None, st, [c as u32]).expect("in a block");
                if c == 1 && origin == PointOrigin::Bottom {
                    let one = self.b.constant_bit32(f32_, ONE);
                    value = self.b.f_sub(f32_, None, one, value).expect("in a block");
                }
                let bits = self.b.bitcast(u32_, None, value).expect("in a block");
                self.store_attribute(false, address, bits);
            }
        }
        if let Some(pattern) = fragment.polygon_stipple {
            self.polygon_stipple(coord, &pattern);
        }
        if let Some(clip) = fragment.window_clip {
            self.window_clip(coord, &clip);
        }
        let w = self.b.composite_extract(f32_, None, coord, [3]).expect("in a block");
        for (g, c, input, mode) in inputs {
            let mut value = self.b.load(f32_, None, input, None, []).expect("in a block");
            if mode == Interpolation::Perspective {
                value = self.b.f_mul(f32_, None, value, w).expect("in a block");
            }
            let bits = self.b.bitcast(u32_, None, value).expect("in a block");
            self.store_attribute(false, attribute::GENERIC + 16 * g + 4 * c, bits);
        }
    }

    /// IPA away from the pixel centre: the attribute word at `address`, interpolated at the centroid (`None`) or
    /// at the packed offset from the centre (x in bits 15:0, y in 31:16, signed 4.12 fixed point, clamped to
    /// [-0.5, 0.4375] as Vulkan guarantees that range and NVIDIA's compilers pack no other), as the prologue
    /// would hold it there. A perspective input is multiplied by the centre's FragCoord.w, as the prologue does,
    /// and Position's w (1/w) reads the centre's too: programs divide by their own read of it at the same
    /// location, so the two cancel as they do on the hardware. Position's x and y move by the offset (the
    /// centroid's reads the centre's); flat inputs and every other word are the prologue's.
    pub(in crate::shader::spirv) fn interpolate_at(&mut self, address: u32, offset: Option<Word>) -> Word {
        let StageIo::Fragment { frag_coord, inputs, .. } = self.io() else {
            unreachable!("IPA is refused outside pixel programs")
        };
        let (frag_coord, inputs) = (*frag_coord, inputs.clone());
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let v2f32 = self.b.type_vector(f32_, 2);
        let offset = offset.map(|packed| {
            let int = self.b.type_int(32, 1);
            let packed = self.b.bitcast(int, None, packed).expect("in a block");
            let sixteen = self.u32_const(16);
            let low = self.b.shift_left_logical(int, None, packed, sixteen).expect("in a block");
            let halves =
                [low, packed].map(|half| self.b.shift_right_arithmetic(int, None, half, sixteen).expect("in a block"));
            let scale = self.b.constant_bit32(f32_, (1.0f32 / 4096.0).to_bits());
            let (low, high) =
                (self.b.constant_bit32(f32_, (-0.5f32).to_bits()), self.b.constant_bit32(f32_, 0.4375f32.to_bits()));
            let [x, y] = halves.map(|half| {
                let value = self.b.convert_s_to_f(f32_, None, half).expect("in a block");
                let value = self.b.f_mul(f32_, None, value, scale).expect("in a block");
                self.glsl(f32_, crate::shader::spirv::glsl::N_CLAMP, &[value, low, high])
            });
            self.b.composite_construct(v2f32, None, [x, y]).expect("in a block")
        });
        let v4f32 = self.b.type_vector(f32_, 4);
        let generic = (attribute::GENERIC..attribute::GENERIC_END).contains(&address).then(|| {
            let (g, c) = ((address - attribute::GENERIC) / 16, (address - attribute::GENERIC) % 16 / 4);
            inputs.iter().find(|&&(ig, ic, ..)| (ig, ic) == (g, c)).copied()
        });
        let value = match (generic, address) {
            (Some(Some((_, _, input, mode))), _) if mode != Interpolation::Constant => {
                let mut value = match offset {
                    None => self.glsl(f32_, crate::shader::spirv::glsl::INTERPOLATE_AT_CENTROID, &[input]),
                    Some(offset) => {
                        self.glsl(f32_, crate::shader::spirv::glsl::INTERPOLATE_AT_OFFSET, &[input, offset])
                    }
                };
                if mode == Interpolation::Perspective {
                    let coord = self.b.load(v4f32, None, frag_coord, None, []).expect("in a block");
                    let w = self.b.composite_extract(f32_, None, coord, [3]).expect("in a block");
                    value = self.b.f_mul(f32_, None, value, w).expect("in a block");
                }
                value
            }
            (None, x_or_y)
                if offset.is_some() && (x_or_y == attribute::POSITION || x_or_y == attribute::POSITION + 4) =>
            {
                let component = (x_or_y - attribute::POSITION) / 4;
                let coord = self.b.load(v4f32, None, frag_coord, None, []).expect("in a block");
                let centre = self.b.composite_extract(f32_, None, coord, [component]).expect("in a block");
                let moved =
                    self.b.composite_extract(f32_, None, offset.expect("an offset"), [component]).expect("in a block");
                self.b.f_add(f32_, None, centre, moved).expect("in a block")
            }
            _ => return self.load_attribute(false, address),
        };
        self.b.bitcast(u32_, None, value).expect("in a block")
    }

    /// A guest register's value at the end (0 if the program never touches it).
    fn final_register(&mut self, register: u8) -> Word {
        match self.registers.get(&register) {
            Some(&variable) => self.b.load(self.t.u32, None, variable, None, []).expect("in a block"),
            None => self.u32_const(0),
        }
    }

    /// The pixel's x and y as U32 (`coord`: FragCoord, at the pixel's centre).
    fn pixel_position(&mut self, coord: Word) -> [Word; 2] {
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        [0, 1].map(|c| {
            let component = self.b.composite_extract(f32_, None, coord, [c]).expect("in a block");
            self.b.convert_f_to_u(u32_, None, component).expect("in a block")
        })
    }

    /// The polygon stipple (`FragmentInterface::polygon_stipple`), as a branch to OpKill where the pixel's bit
    /// is clear: the row's word picked by a chain of selects, then the bit.
    fn polygon_stipple(&mut self, coord: Word, pattern: &[u32; 32]) {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let [x, y] = self.pixel_position(coord);
        let (thirty_one, seven, one) = (self.u32_const(31), self.u32_const(7), self.u32_const(1));
        let row = self.b.bitwise_and(u32_, None, y, thirty_one).expect("in a block");
        let word = self.pick_constant(row, pattern);
        // Bit 8 (x / 8) + 7 - x % 8 of x mod 32: the byte's bits counted from the top, i.e. bit (x & 31) ^ 7.
        let column = self.b.bitwise_and(u32_, None, x, thirty_one).expect("in a block");
        let bit = self.b.bitwise_xor(u32_, None, column, seven).expect("in a block");
        let shifted = self.b.shift_right_logical(u32_, None, word, bit).expect("in a block");
        let set = self.b.bitwise_and(u32_, None, shifted, one).expect("in a block");
        let pass = self.b.i_equal(bool_, None, set, one).expect("in a block");
        self.kill_unless(pass);
    }

    /// The window clip (`FragmentInterface::window_clip`), as a branch to OpKill where it does not keep the
    /// pixel: its x and y compared with each rectangle that holds any pixel.
    fn window_clip(&mut self, coord: Word, clip: &WindowClip) {
        let bool_ = self.t.bool;
        let [x, y] = self.pixel_position(coord);
        let within = |e: &mut Self, value: Word, low: u16, high: u16| {
            let (low, high) = (e.u32_const(low.into()), e.u32_const(high.into()));
            let above = e.b.u_greater_than_equal(bool_, None, value, low).expect("in a block");
            let below = e.b.u_less_than(bool_, None, value, high).expect("in a block");
            e.b.logical_and(bool_, None, above, below).expect("in a block")
        };
        let mut inside = self.b.constant_false(bool_);
        for &[x0, y0, x1, y1] in clip.rects.iter().filter(|[x0, y0, x1, y1]| x0 < x1 && y0 < y1) {
            let (across, down) = (within(self, x, x0, x1), within(self, y, y0, y1));
            let here = self.b.logical_and(bool_, None, across, down).expect("in a block");
            inside = self.b.logical_or(bool_, None, inside, here).expect("in a block");
        }
        let pass = if clip.exclusive { self.b.logical_not(bool_, None, inside).expect("in a block") } else { inside };
        self.kill_unless(pass);
    }

    /// The sample mask of this invocation's pixel among a quad's `masks` (by the parities of its x and y).
    fn quad_sample_mask(&mut self, masks: &[u16; 4]) -> Word {
        let StageIo::Fragment { frag_coord, .. } = self.io() else { unreachable!("a fragment stage") };
        let frag_coord = *frag_coord;
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let v4f32 = self.b.type_vector(f32_, 4);
        let coord = self.b.load(v4f32, None, frag_coord, None, []).expect("in a block");
        let one = self.u32_const(1);
        let [x, y] =
            self.pixel_position(coord).map(|whole| self.b.bitwise_and(u32_, None, whole, one).expect("in a block"));
        let row = self.b.shift_left_logical(u32_, None, y, one).expect("in a block");
        let index = self.b.bitwise_or(u32_, None, x, row).expect("in a block");
        self.pick_constant(index, &masks.map(u32::from))
    }

    /// `values[index]` (`index` below their count) as a chain of selects, the constants being few.
    fn pick_constant(&mut self, index: Word, values: &[u32]) -> Word {
        let (u32_, bool_) = (self.t.u32, self.t.bool);
        let mut value = self.u32_const(values[0]);
        for (k, &bits) in values.iter().enumerate().skip(1) {
            let (k, bits) = (self.u32_const(k as u32), self.u32_const(bits));
            let here = self.b.i_equal(bool_, None, index, k).expect("in a block");
            value = self.b.select(u32_, None, here, bits, value).expect("in a block");
        }
        value
    }

    /// A branch to OpKill unless `pass` holds.
    fn kill_unless(&mut self, pass: Word) {
        let (kill, merge) = (self.b.id(), self.b.id());
        self.b.selection_merge(merge, rspirv::spirv::SelectionControl::NONE).expect("in a block");
        self.b.branch_conditional(pass, merge, kill, []).expect("in a block");
        self.b.begin_block(Some(kill)).expect("in a function");
        self.b.kill().expect("in a block");
        self.b.begin_block(Some(merge)).expect("in a function");
    }

    /// The alpha test, as a branch to OpKill when it fails.
    fn alpha_test(&mut self, fragment: &FragmentInterface) {
        let Some((comparison, reference)) = fragment.alpha_test else { return };
        let (f32_, bool_) = (self.t.f32, self.t.bool);
        let alpha = match fragment.header.output_registers().targets[0] {
            Some(first) => {
                let bits = self.final_register(first + 3);
                self.b.bitcast(f32_, None, bits).expect("in a block")
            }
            None => self.b.constant_bit32(f32_, 0),
        };
        let reference = self.b.constant_bit32(f32_, reference);
        let b = &mut self.b;
        let pass = match comparison {
            Comparison::Always => return,
            Comparison::Never => b.constant_false(bool_),
            Comparison::Less => b.f_ord_less_than(bool_, None, alpha, reference).expect("in a block"),
            Comparison::Equal => b.f_ord_equal(bool_, None, alpha, reference).expect("in a block"),
            Comparison::LessOrEqual => b.f_ord_less_than_equal(bool_, None, alpha, reference).expect("in a block"),
            Comparison::Greater => b.f_ord_greater_than(bool_, None, alpha, reference).expect("in a block"),
            Comparison::NotEqual => b.f_unord_not_equal(bool_, None, alpha, reference).expect("in a block"),
            Comparison::GreaterOrEqual => {
                b.f_ord_greater_than_equal(bool_, None, alpha, reference).expect("in a block")
            }
        };
        self.kill_unless(pass);
    }

    /// The alpha test, then the registers the header names into the colour outputs, depth and the sample mask.
    pub(in crate::shader::spirv) fn fragment_epilogue(&mut self, fragment: &FragmentInterface) {
        self.alpha_test(fragment);
        let StageIo::Fragment { colors, depth, sample_mask, .. } = self.io() else { unreachable!("a fragment stage") };
        let (colors, depth, sample_mask) = (colors.clone(), *depth, *sample_mask);
        for (target, output, kind, first) in colors {
            let element = match kind {
                NumberKind::Float => self.t.f32,
                NumberKind::Uint => self.t.u32,
                NumberKind::Sint => self.b.type_int(32, 1),
            };
            let clamp = fragment.saturate[target as usize].filter(|_| kind == NumberKind::Float).map(|range| {
                let low = if range == Saturate::ZeroToOne { 0.0f32 } else { -1.0 };
                (self.b.constant_bit32(self.t.f32, low.to_bits()), self.b.constant_bit32(self.t.f32, 1.0f32.to_bits()))
            });
            let components: Vec<Word> = (0..4)
                .map(|c| {
                    let bits = self.final_register(first + c);
                    if kind == NumberKind::Uint {
                        return bits;
                    }
                    let value = self.b.bitcast(element, None, bits).expect("in a block");
                    match clamp {
                        Some((low, high)) => {
                            self.glsl(self.t.f32, crate::shader::spirv::glsl::N_CLAMP, &[value, low, high])
                        }
                        None => value,
                    }
                })
                .collect();
            let swizzle = fragment.swizzles[target as usize];
            let components = swizzle.map(|c| components[c as usize]);
            let vector = self.b.type_vector(element, 4);
            let value = self.b.composite_construct(vector, None, components).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        if let Some((output, register)) = depth {
            let bits = self.final_register(register);
            let value = self.b.bitcast(self.t.f32, None, bits).expect("in a block");
            self.b.store(output, value, None, []).expect("in a block");
        }
        if let Some((output, register)) = sample_mask {
            let u32_ = self.t.u32;
            let all = self.u32_const(u32::MAX);
            let mut bits = register.map_or(all, |register| self.final_register(register));
            if let Some(masks) = fragment.quad_sample_masks {
                let quad = self.quad_sample_mask(&masks);
                bits = self.b.bitwise_and(u32_, None, bits, quad).expect("in a block");
            }
            let int = self.b.type_int(32, 1);
            let value = self.b.bitcast(int, None, bits).expect("in a block");
            let pointer = self.b.type_pointer(None, StorageClass::Output, int);
            let zero = self.u32_const(0);
            let element = self.b.access_chain(pointer, None, output, [zero]).expect("in a block");
            self.b.store(element, value, None, []).expect("in a block");
        }
    }
}
