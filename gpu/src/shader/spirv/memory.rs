//! How the emitter reaches memory: pointers into global memory (the device's own addresses, or guest GPU
//! addresses through the windows the back end mirrors), shared, local and attribute memory; bytes and halves
//! within words; and shared memory of 64-bit words for programs with 64-bit shared compare-and-swaps.

use super::graphics::ATTRIBUTE_WORDS;
use super::{Emitter, WORKGROUP_SCOPE};
use crate::shader::ir::Space;
use crate::shader::{FaultWord, GlobalMemory, GuestWindows};
use rspirv::dr::Operand;
use rspirv::spirv::{self, Capability, MemoryAccess, StorageClass, Word};

impl Emitter<'_> {
    /// A pointer to the word at `address` in `space`, with the memory access operands a load or store needs.
    pub(super) fn pointer(&mut self, space: Space, address: Word) -> (Word, (Option<MemoryAccess>, Vec<Operand>)) {
        match space {
            Space::Global => {
                let address = match self.global {
                    GlobalMemory::Device => address,
                    GlobalMemory::Guest(windows) => self.guest_address(windows, address),
                };
                let pointer = self.b.convert_u_to_ptr(self.t.ptr_psb_u32, None, address).expect("in a block");
                (pointer, (Some(MemoryAccess::ALIGNED), vec![Operand::LiteralBit32(4)]))
            }
            Space::Shared | Space::Local | Space::Attribute | Space::Output | Space::VertexAttribute => {
                let two = self.u32_const(2);
                let mut index = self.b.shift_right_logical(self.t.u32, None, address, two).expect("in a block");
                let (array, class) = match space {
                    // Past the end (a fault on the hardware): the last word, never outside the array.
                    Space::Shared => {
                        index = self.clamp_index(index, self.program.shared_bytes.div_ceil(4));
                        (self.shared.expect("shared memory declared"), StorageClass::Workgroup)
                    }
                    Space::Local => {
                        index = self.clamp_index(index, self.program.local_bytes.div_ceil(4).max(1));
                        (self.local.expect("local memory declared"), StorageClass::Function)
                    }
                    Space::Attribute | Space::Output => {
                        // 256 words (a geometry program's first vertex's): an address past them wraps instead
                        // of leaving the array.
                        let last = self.u32_const(ATTRIBUTE_WORDS - 1);
                        index = self.b.bitwise_and(self.t.u32, None, index, last).expect("in a block");
                        let array = if space == Space::Attribute { self.attributes } else { self.outputs };
                        (array.expect("a graphics stage declares its attribute spaces"), StorageClass::Function)
                    }
                    Space::VertexAttribute => {
                        // Past the primitive's last vertex: its last word (a handle ISBERD never gives).
                        let last = self.u32_const(ATTRIBUTE_WORDS * self.input_vertices - 1);
                        index = self.glsl(self.t.u32, super::glsl::U_MIN, &[index, last]);
                        (
                            self.attributes.expect("a geometry stage declares its attribute space"),
                            StorageClass::Function,
                        )
                    }
                    Space::Global => unreachable!("the outer match takes global memory"),
                };
                let pointer_type = self.b.type_pointer(None, class, self.t.u32);
                let pointer = self.b.access_chain(pointer_type, None, array, [index]).expect("in a block");
                (pointer, (None, Vec::new()))
            }
        }
    }

    /// `index` into an array of `words` (at least one), at most its last: an access the program makes past its
    /// memory (which faults on the hardware) stays inside the host's array.
    fn clamp_index(&mut self, index: Word, words: u32) -> Word {
        let last = self.u32_const(words.max(1) - 1);
        self.glsl(self.t.u32, super::glsl::U_MIN, &[index, last])
    }

    /// The device pointer to a byte or half of global memory (8- or 16-bit storage access).
    pub(super) fn narrow_global_pointer(&mut self, address: Word, bytes: u8) -> (Word, Word) {
        let address = match self.global {
            GlobalMemory::Device => address,
            GlobalMemory::Guest(windows) => self.guest_address(windows, address),
        };
        let (ty, capabilities) = if bytes == 1 {
            (self.b.type_int(8, 0), [Capability::Int8, Capability::StorageBuffer8BitAccess])
        } else {
            (self.b.type_int(16, 0), [Capability::Int16, Capability::StorageBuffer16BitAccess])
        };
        for capability in capabilities {
            self.b.capability(capability);
        }
        let pointer_type = self.b.type_pointer(None, StorageClass::PhysicalStorageBuffer, ty);
        (self.b.convert_u_to_ptr(pointer_type, None, address).expect("in a block"), ty)
    }

    /// In 64-bit shared memory (`shared_wide`): a pointer to the word holding the `bytes` (1, 2, 4 or 8) at
    /// `address`, the bit where they start (a U32) and their mask there (a U64).
    pub(super) fn shared_word(&mut self, address: Word, bytes: u8) -> (Word, Word, Word) {
        let (u32_, u64_) = (self.t.u32, self.t.u64);
        let (three, seven) = (self.u32_const(3), self.u32_const(7));
        let index = self.b.shift_right_logical(u32_, None, address, three).expect("in a block");
        let index = self.clamp_index(index, self.program.shared_bytes.div_ceil(8));
        let pointer_type = self.b.type_pointer(None, StorageClass::Workgroup, u64_);
        let array = self.shared.expect("shared memory declared");
        let pointer = self.b.access_chain(pointer_type, None, array, [index]).expect("in a block");
        let byte = self.b.bitwise_and(u32_, None, address, seven).expect("in a block");
        let shift = self.b.shift_left_logical(u32_, None, byte, three).expect("in a block");
        let ones = if bytes == 8 { u64::MAX } else { (1u64 << (8 * bytes)) - 1 };
        let ones = self.b.constant_bit64(u64_, ones);
        let mask = self.b.shift_left_logical(u64_, None, ones, shift).expect("in a block");
        (pointer, shift, mask)
    }

    /// A compare-and-swap in 64-bit shared memory: of a whole word (`wide`), or of the 32-bit half at `address`
    /// by a loop that swaps the whole word until no other invocation changed it in between. The old value.
    pub(super) fn shared_swap(&mut self, address: Word, compare: Word, value: Word, wide: bool) -> Word {
        let (u32_, u64_, bool_) = (self.t.u32, self.t.u64, self.t.bool);
        self.b.capability(Capability::Int64Atomics);
        let (scope, relaxed) = (self.u32_const(WORKGROUP_SCOPE), self.u32_const(0));
        let (pointer, shift, mask) = self.shared_word(address, if wide { 8 } else { 4 });
        if wide {
            return self
                .b
                .atomic_compare_exchange(u64_, None, pointer, scope, relaxed, relaxed, value, compare)
                .expect("in a block");
        }
        let (header, continue_, merge) = self.open_loop();
        let old = self.b.load(u64_, None, pointer, None, []).expect("in a block");
        let moved = self.b.shift_right_logical(u64_, None, old, shift).expect("in a block");
        let half = self.b.u_convert(u32_, None, moved).expect("in a block");
        let matches = self.b.i_equal(bool_, None, half, compare).expect("in a block");
        let keep = self.b.not(u64_, None, mask).expect("in a block");
        let kept = self.b.bitwise_and(u64_, None, old, keep).expect("in a block");
        let wide_value = self.b.u_convert(u64_, None, value).expect("in a block");
        let placed = self.b.shift_left_logical(u64_, None, wide_value, shift).expect("in a block");
        let new = self.b.bitwise_or(u64_, None, kept, placed).expect("in a block");
        // Where the half differs, the swap stores the word back as it was, only to learn that it still was.
        let desired = self.b.select(u64_, None, matches, new, old).expect("in a block");
        let held = self
            .b
            .atomic_compare_exchange(u64_, None, pointer, scope, relaxed, relaxed, desired, old)
            .expect("in a block");
        let unchanged = self.b.i_equal(bool_, None, held, old).expect("in a block");
        self.b.branch(continue_).expect("in a block");
        self.b.begin_block(Some(continue_)).expect("in a function");
        self.b.branch_conditional(unchanged, merge, header, []).expect("in a block");
        self.b.begin_block(Some(merge)).expect("in a function");
        half
    }

    /// The word holding a byte or half of shared or local memory, the bit where it starts and its mask there.
    pub(super) fn sub_word(&mut self, address: Word, bytes: u8) -> (Word, Word) {
        let u32_ = self.t.u32;
        let (three, eight) = (self.u32_const(3), self.u32_const(8));
        let byte = self.b.bitwise_and(u32_, None, address, three).expect("in a block");
        let shift = self.b.i_mul(u32_, None, byte, eight).expect("in a block");
        let mask = self.u32_const(if bytes == 1 { 0xff } else { 0xffff });
        let mask = self.b.shift_left_logical(u32_, None, mask, shift).expect("in a block");
        (shift, mask)
    }

    pub(super) fn load_sub(&mut self, space: Space, address: Word, bytes: u8) -> Word {
        let u32_ = self.t.u32;
        if space == Space::Global {
            let (pointer, ty) = self.narrow_global_pointer(address, bytes);
            let access = Operand::LiteralBit32(u32::from(bytes));
            let value = self.b.load(ty, None, pointer, Some(MemoryAccess::ALIGNED), [access]).expect("in a block");
            return self.b.u_convert(u32_, None, value).expect("in a block");
        }
        if space == Space::Shared && self.shared_wide {
            let u64_ = self.t.u64;
            let (pointer, shift, _) = self.shared_word(address, bytes);
            let word = self.b.load(u64_, None, pointer, None, []).expect("in a block");
            let moved = self.b.shift_right_logical(u64_, None, word, shift).expect("in a block");
            let value = self.b.u_convert(u32_, None, moved).expect("in a block");
            if bytes == 4 {
                return value;
            }
            let low = self.u32_const(if bytes == 1 { 0xff } else { 0xffff });
            return self.b.bitwise_and(u32_, None, value, low).expect("in a block");
        }
        let (pointer, access) = self.pointer(space, address);
        let word = self.b.load(u32_, None, pointer, access.0, access.1).expect("in a block");
        let (shift, _) = self.sub_word(address, bytes);
        let moved = self.b.shift_right_logical(u32_, None, word, shift).expect("in a block");
        let low = self.u32_const(if bytes == 1 { 0xff } else { 0xffff });
        self.b.bitwise_and(u32_, None, moved, low).expect("in a block")
    }

    pub(super) fn store_sub(&mut self, space: Space, address: Word, bytes: u8, value: Word) {
        let u32_ = self.t.u32;
        if space == Space::Global {
            let (pointer, ty) = self.narrow_global_pointer(address, bytes);
            let narrow = self.b.u_convert(ty, None, value).expect("in a block");
            let access = Operand::LiteralBit32(u32::from(bytes));
            self.b.store(pointer, narrow, Some(MemoryAccess::ALIGNED), [access]).expect("in a block");
            return;
        }
        if space == Space::Shared && self.shared_wide {
            // Other invocations may store the word's other bytes: clear and set ours with atomics.
            let u64_ = self.t.u64;
            self.b.capability(Capability::Int64Atomics);
            let (pointer, shift, mask) = self.shared_word(address, bytes);
            let wide = self.b.u_convert(u64_, None, value).expect("in a block");
            let moved = self.b.shift_left_logical(u64_, None, wide, shift).expect("in a block");
            let bits = self.b.bitwise_and(u64_, None, moved, mask).expect("in a block");
            let keep = self.b.not(u64_, None, mask).expect("in a block");
            let (scope, relaxed) = (self.u32_const(WORKGROUP_SCOPE), self.u32_const(0));
            self.b.atomic_and(u64_, None, pointer, scope, relaxed, keep).expect("in a block");
            self.b.atomic_or(u64_, None, pointer, scope, relaxed, bits).expect("in a block");
            return;
        }
        let (pointer, access) = self.pointer(space, address);
        let (shift, mask) = self.sub_word(address, bytes);
        let moved = self.b.shift_left_logical(u32_, None, value, shift).expect("in a block");
        let bits = self.b.bitwise_and(u32_, None, moved, mask).expect("in a block");
        let all = self.u32_const(u32::MAX);
        let keep = self.b.bitwise_xor(u32_, None, mask, all).expect("in a block");
        if space == Space::Shared {
            // Other invocations may store the word's other bytes: clear and set ours with atomics.
            let scope = self.u32_const(spirv::Scope::Workgroup as u32);
            let semantics = self.u32_const(0);
            self.b.atomic_and(u32_, None, pointer, scope, semantics, keep).expect("in a block");
            self.b.atomic_or(u32_, None, pointer, scope, semantics, bits).expect("in a block");
        } else {
            let word = self.b.load(u32_, None, pointer, access.0, access.1.clone()).expect("in a block");
            let kept = self.b.bitwise_and(u32_, None, word, keep).expect("in a block");
            let merged = self.b.bitwise_or(u32_, None, kept, bits).expect("in a block");
            self.b.store(pointer, merged, access.0, access.1).expect("in a block");
        }
    }

    /// The device address of guest GPU address `address`: a chain of selects over the windows (no control flow,
    /// so that it fits anywhere in a block). Outside every window it is the fault buffer's sink word, and the
    /// fault flag is set: every access stores to the flag word or to the spare one, whichever applies.
    pub(super) fn guest_address(&mut self, guest: &GuestWindows, address: Word) -> Word {
        let (u64_, bool_) = (self.t.u64, self.t.bool);
        let fault = |e: &mut Self, word: u64| e.b.constant_bit64(u64_, guest.fault + 4 * word);
        let mut translated = fault(self, FaultWord::Sink as u64);
        let mut mapped = self.b.constant_false(bool_);
        for window in &guest.windows {
            let (start, size, device) = (
                self.b.constant_bit64(u64_, window.gpu),
                self.b.constant_bit64(u64_, window.size),
                self.b.constant_bit64(u64_, window.device),
            );
            let b = &mut self.b;
            let offset = b.i_sub(u64_, None, address, start).expect("in a block");
            let inside = b.u_less_than(bool_, None, offset, size).expect("in a block");
            let there = b.i_add(u64_, None, device, offset).expect("in a block");
            translated = b.select(u64_, None, inside, there, translated).expect("in a block");
            mapped = b.logical_or(bool_, None, mapped, inside).expect("in a block");
        }
        let (flag, spare) = (fault(self, FaultWord::Flag as u64), fault(self, FaultWord::Spare as u64));
        let flag_address = self.b.select(u64_, None, mapped, spare, flag).expect("in a block");
        let flag_pointer = self.b.convert_u_to_ptr(self.t.ptr_psb_u32, None, flag_address).expect("in a block");
        let one = self.u32_const(1);
        self.b.store(flag_pointer, one, Some(MemoryAccess::ALIGNED), [Operand::LiteralBit32(4)]).expect("in a block");
        translated
    }
}
