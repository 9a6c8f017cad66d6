//! The oracle corpus (`gpu/tests/sass/` in the source tree): kernels that ptxas compiled for sm_53 and sm_86,
//! nvdisasm's listings of them, and what an NVIDIA GPU left in memory after running each (`runs.txt` says how
//! each was launched). The tests and `tandem shader coverage` run our interpreter and our translations on the
//! same launches and compare with the GPU's bytes.
//!
//! Each launch gets three 64 KiB buffers, `out`, `in` (a copy of `cuda/input.bin`) and `gen` (zeros); the GPU's
//! result `cuda/results/ENTRY.out` is the three buffers afterwards, concatenated.

use super::Isa;
use super::cubin::{Cubin, CubinError, KernelImage};
use super::exec::{
    self, ConstantBuffers, ExecError, Kernel, Launch, Sampler, TextureImage, Textures, Wrap, driver_constants,
    run_compute,
};
use crate::shader::ir::{HandlePart, PoolView, SurfaceBinding, TextureBinding, TextureHandle, TextureView};
use crate::shader::structure::ControlFlow;
use crate::shader::{
    FAULT_BYTES, FaultWord, GlobalMemory, GuestWindows, Layout, TranslateError, Window, translate_compute_laid_out,
};
use crate::texture::format::NumberKind;
use crate::vulkan::{
    ComputeDevice, DispatchOptions, Sampling, StorageImage, Texture, TexturePool, TextureSlot, VulkanError,
};
use ash::vk;
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub const BUFFER_BYTES: usize = 64 * 1024;
/// Where the interpreter maps the `out`, `in` and `gen` buffers.
pub const BUFFER_ADDRESSES: [u64; 3] = [0x1_0000_0000, 0x2_0000_0000, 0x3_0000_0000];
/// Local memory per thread: enough for the kernels' stacks.
pub const LOCAL_BYTES: u32 = 4096;

/// Why the corpus could not be read or a run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("runs.txt line {line}: {what}")]
    Manifest { line: usize, what: String },
    #[error("{file}: {source}")]
    Cubin { file: String, source: CubinError },
    #[error("{entry}: {source}")]
    Exec { entry: String, source: ExecError },
    #[error("{entry}: {source}")]
    Translate { entry: String, source: TranslateError },
    #[error("{entry}: {source}")]
    Vulkan { entry: String, source: VulkanError },
    #[error("{entry}: {what}")]
    Texture { entry: String, what: String },
    #[error("a hand-built program (sass::programs) does not assemble: {0}")]
    Assemble(#[from] super::assemble::AssembleError),
}

/// One line of `runs.txt`: a kernel's entry point and how it is launched.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub file: String,
    pub entry: String,
    pub params: Vec<Parameter>,
    pub block: [u32; 3],
    pub grid: [u32; 3],
    /// What `out` holds before the launch: zeros, or a copy of the input.
    pub out_starts_as_input: bool,
    /// The size of the record that repeats through `out` (one per thread).
    pub stride: usize,
    /// Byte offsets within a record that come from hardware approximations: FP32 (or FP64) values, and pairs of
    /// FP16 values.
    pub approx: BTreeSet<usize>,
    pub approx16: BTreeSet<usize>,
    /// Byte offsets within a record that differ between runs.
    pub varies: BTreeSet<usize>,
    /// Byte offsets within a record that the sm_53 build is not compared at: the GPU computed them with sm_90
    /// code whose operation Maxwell's code does differently (sin.approx: FMUL.RZ by FP32's 1/(2 pi) where sm_53
    /// has RRO.SINCOS, `gpu/research/rro-sincos.md`).
    pub sm86_only: BTreeSet<usize>,
    /// (offset, bytes) of the FP16, FP32 or FP64 values within a record whose NaN is the implementation's: any
    /// NaN matches a NaN there.
    pub nan: Vec<(usize, usize)>,
    /// The textures the run binds (`tex=N` parameters name them by position).
    pub textures: Vec<RunTexture>,
    /// The surfaces the run binds (`surf=N`).
    pub surfaces: Vec<RunSurface>,
    /// The sampler every texture handle names (sampler 0): CUDA's point sampling unless a run says otherwise.
    pub sampler: Sampler,
    /// Texels of the run's own for its textures, by number, in [`RunTexture::texels`]' order: where a texture has
    /// none here (or an empty entry), it holds what `texels` makes.
    pub texture_data: Vec<Vec<u8>>,
    /// The same for its surfaces (in [`RunSurface::texels`]' order).
    pub surface_data: Vec<Vec<u8>>,
}

impl Run {
    /// The texels of texture `number`: the run's own, or what [`RunTexture::texels`] makes.
    pub fn texture_bytes(&self, number: usize) -> Cow<'_, [u8]> {
        match self.texture_data.get(number) {
            Some(own) if !own.is_empty() => Cow::Borrowed(own),
            _ => Cow::Owned(self.textures[number].texels(number)),
        }
    }

    /// The texels of surface `number` before the launch: the run's own, or what [`RunSurface::texels`] makes.
    pub fn surface_bytes(&self, number: usize) -> Vec<u8> {
        match self.surface_data.get(number) {
            Some(own) if !own.is_empty() => own.clone(),
            _ => self.surfaces[number].texels(number),
        }
    }
}

/// A texture of RGBA32F texels that a run binds, read with point filtering, clamped addressing and normalized
/// coordinates: `textures=KIND:WxHxD:LAYERS:LEVELS` (KIND 2d, 3d or cube; D is a 3D texture's depth, 1
/// otherwise; a cube has six faces a layer; more than one layer makes an array).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunTexture {
    pub dim: crate::shader::ir::TextureDim,
    pub size: [u32; 3],
    pub layers: u32,
    pub levels: u32,
    /// The header is an array's (of one layer or more).
    pub array: bool,
    /// The texels are depths, one FP32 each (D32_SFLOAT), which depth-compare samples compare.
    pub depth: bool,
}

impl RunTexture {
    fn parse(text: &str) -> Option<RunTexture> {
        use crate::shader::ir::TextureDim;
        let mut fields = text.split(':');
        let dim = match fields.next()? {
            "2d" => TextureDim::D2,
            "3d" => TextureDim::D3,
            "cube" => TextureDim::Cube,
            _ => return None,
        };
        let (size, layers) = parse_shape(&mut fields)?;
        let levels = parse_number(fields.next()?)? as u32;
        let sane = (1..=13).contains(&levels);
        let texture = RunTexture { dim, size, layers, levels, array: layers > 1, depth: false };
        (sane && fields.next().is_none()).then_some(texture)
    }

    /// The layers the image holds: a cube's six faces a layer.
    pub fn image_layers(&self) -> u32 {
        if self.dim == crate::shader::ir::TextureDim::Cube { 6 * self.layers } else { self.layers }
    }

    /// Level `level`'s width, height and depth.
    pub fn extent(&self, level: u32) -> [u32; 3] {
        self.size.map(|n| (n >> level).max(1))
    }

    /// Bytes of one of its texels: four FP32 numbers, or a depth's one.
    fn texel_bytes(&self) -> usize {
        if self.depth { 4 } else { 16 }
    }

    /// The texture on the device with `texels`, FP32 numbers sampled as `sampling` says.
    fn vulkan<'t>(&self, texels: &'t [u8], sampling: Sampling) -> Texture<'t> {
        Texture {
            format: if self.depth { vk::Format::D32_SFLOAT } else { vk::Format::R32G32B32A32_SFLOAT },
            bytes_per_texel: self.texel_bytes() as u64,
            view_type: crate::vulkan::view_type(self.dim, self.array),
            width: self.size[0],
            height: self.size[1],
            depth: self.size[2],
            layers: self.image_layers(),
            levels: self.levels,
            texels,
            sampling,
        }
    }

    /// How the device samples it through `sampler`: comparing only where its texels are depths.
    fn sampling(&self, sampler: &Sampler) -> Sampling {
        sampling(sampler, self.depth)
    }

    /// The texture with `texels` (in [`RunTexture::texels`]' order) for the interpreter.
    pub fn image(&self, texels: &[u8]) -> TextureImage {
        TextureImage {
            dim: self.dim,
            size: self.size,
            array: self.array,
            layers: self.image_layers(),
            levels: self.levels,
            // A depth in R, the rest 0.
            texels: texels
                .chunks_exact(self.texel_bytes())
                .map(|t| {
                    let word =
                        |c: usize| t.get(4 * c..4 * c + 4).map_or(0, |w| u32::from_le_bytes(w.try_into().expect("4")));
                    std::array::from_fn(word)
                })
                .collect(),
        }
    }

    /// The texture as an instruction of `array`-ness reads it, and its texels (`texels`): a non-array read of an
    /// array reads its first layer (a cube array's first cube), as a Tegra X1 does (nxgpucatch's tex.cpp); an
    /// array read of a non-array texture, its one layer.
    fn read_as<'t>(&self, array: bool, texels: &'t [u8]) -> (RunTexture, Cow<'t, [u8]>) {
        if array || !self.array {
            return (RunTexture { array, ..*self }, Cow::Borrowed(texels));
        }
        let first = RunTexture { layers: 1, array: false, ..*self };
        let mut kept = Vec::new();
        let mut at = 0;
        for level in 0..self.levels {
            let layer_bytes = self.extent(level).iter().map(|&n| n as usize).product::<usize>() * self.texel_bytes();
            let faces = (first.image_layers() as usize) * layer_bytes;
            kept.extend_from_slice(&texels[at..at + faces]);
            at += self.image_layers() as usize * layer_bytes;
        }
        (first, Cow::Owned(kept))
    }

    /// The texels of the run's texture `number`, levels in order, each level's layers (faces), slices, rows and
    /// texels in order: word k is the FP32 value `number * 4096 + k + 0.25` (distinct and exact in FP32 and, for
    /// the first levels, in FP16), as `cuda/runner.cu` fills the GPU's (a depth texture's texels are one word).
    pub fn texels(&self, number: usize) -> Vec<u8> {
        let words: u64 = (0..self.levels)
            .map(|level| {
                let [w, h, d] = self.extent(level);
                let texels = u64::from(w) * u64::from(h) * u64::from(d) * u64::from(self.image_layers());
                texels * self.texel_bytes() as u64 / 4
            })
            .sum();
        (0..words).flat_map(|k| ((number as u64 * 4096 + k) as f32 + 0.25).to_le_bytes()).collect()
    }
}

/// A surface of unsigned integer texels that a run binds: `surfaces=KIND:WxHxD:LAYERS:FORMAT` (KIND 1d, 2d or 3d;
/// FORMAT r8, r16, r32, rg32 or rgba32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunSurface {
    pub dim: crate::shader::ir::TextureDim,
    pub size: [u32; 3],
    pub layers: u32,
    pub format: exec::SurfaceFormat,
}

impl RunSurface {
    fn parse(text: &str) -> Option<RunSurface> {
        use crate::shader::ir::TextureDim;
        let mut fields = text.split(':');
        let dim = match fields.next()? {
            "1d" => TextureDim::D1,
            "2d" => TextureDim::D2,
            "3d" => TextureDim::D3,
            _ => return None,
        };
        let (size, layers) = parse_shape(&mut fields)?;
        let (channels, channel_bytes) = match fields.next()? {
            "r8" => (1, 1),
            "r16" => (1, 2),
            "r32" => (1, 4),
            "rg32" => (2, 4),
            "rgba32" => (4, 4),
            _ => return None,
        };
        // What the shape has no use for is 1.
        let sane = size.iter().skip(dim.coordinates()).all(|&n| n == 1);
        let format = exec::SurfaceFormat { channels, channel_bytes };
        (sane && fields.next().is_none()).then_some(RunSurface { dim, size, layers, format })
    }

    /// The bytes of its texels.
    pub fn bytes(&self) -> usize {
        self.size.iter().map(|&n| n as usize).product::<usize>()
            * self.layers as usize
            * self.format.texel_bytes() as usize
    }

    /// The texels of the run's surface `number` before the launch, layers, slices, rows and texels in order:
    /// byte k is `(7k + 16 * number + 3) mod 251`, as `cuda/runner.cu` fills the GPU's.
    pub fn texels(&self, number: usize) -> Vec<u8> {
        (0..self.bytes()).map(|k| ((7 * k + 16 * number + 3) % 251) as u8).collect()
    }
}

/// How the device samples as the interpreter's `sampler` does (nearest texels and levels): comparing where the
/// texels are `depth`s.
fn sampling(sampler: &Sampler, depth: bool) -> Sampling {
    let address = match sampler.wrap {
        Wrap::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        Wrap::Repeat => vk::SamplerAddressMode::REPEAT,
    };
    let compare = sampler.compare.filter(|_| depth).map(crate::vulkan::compare_op);
    Sampling { address: [address; 3], compare, ..Sampling::NEAREST_CLAMP }
}

/// Where the interpreter maps surface `number`'s texels.
fn surface_address(number: usize) -> u64 {
    0x10_0000_0000 + number as u64 * 0x1000_0000
}

/// A kernel parameter: a buffer's address plus an offset, a 32-bit value, or a texture's 64-bit handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parameter {
    Buffer {
        index: usize,
        offset: u64,
    },
    Value(u32),
    /// `tex=N`: the run's texture N. Its handle here is N (header N, sampler 0); on the GPU, CUDA's texture
    /// object.
    Texture(u32),
    /// `surf=N`: the run's surface N. Its handle here is the header after the textures'; on the GPU, CUDA's
    /// surface object.
    Surface(u32),
}

/// The corpus folder: its manifest and input.
pub struct Corpus {
    pub dir: PathBuf,
    pub runs: Vec<Run>,
    pub input: Vec<u8>,
}

impl Corpus {
    /// The corpus of the source tree Tandem was built from.
    pub fn source_tree() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sass")
    }

    pub fn open(dir: &Path) -> Result<Corpus, CorpusError> {
        let runs = parse_manifest(&read_text(&dir.join("runs.txt"))?)?;
        let input = read(&dir.join("cuda/input.bin"))?;
        Ok(Corpus { dir: dir.to_path_buf(), runs, input })
    }

    /// The ISA's folder: `sm53` for Maxwell code, `sm86` for Ampere.
    pub fn folder(isa: Isa) -> &'static str {
        match isa {
            Isa::Sm5x => "sm53",
            Isa::Sm86 => "sm86",
        }
    }

    /// The run's kernel compiled for `isa`, or `None` where its PTX has no build for it.
    pub fn kernel(&self, isa: Isa, run: &Run) -> Result<Option<KernelImage>, CorpusError> {
        let path = self.dir.join(Corpus::folder(isa)).join(format!("{}.cubin", run.file));
        if !path.exists() {
            return Ok(None);
        }
        let bytes = read(&path)?;
        let cubin_error = |source| CorpusError::Cubin { file: path.display().to_string(), source };
        let kernel = Cubin::parse(&bytes).and_then(|cubin| cubin.kernel(Some(&run.entry))).map_err(cubin_error)?;
        Ok(Some(kernel))
    }

    /// What the GPU left in the three buffers.
    pub fn expected(&self, run: &Run) -> Result<Vec<u8>, CorpusError> {
        read(&self.dir.join(format!("cuda/results/{}.out", run.entry)))
    }

    /// The ISA's programs with nvdisasm's listings: (name, code, listing), by name.
    pub fn listings(&self, isa: Isa) -> Result<Vec<(String, Vec<u8>, String)>, CorpusError> {
        let dir = self.dir.join(Corpus::folder(isa));
        let entries = std::fs::read_dir(&dir).map_err(|source| CorpusError::Io { path: dir.clone(), source })?;
        let mut programs = Vec::new();
        for entry in entries {
            let path = entry.map_err(|source| CorpusError::Io { path: dir.clone(), source })?.path();
            if path.extension().is_some_and(|e| e == "bin") {
                let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
                programs.push((name, read(&path)?, read_text(&path.with_extension("sass"))?));
            }
        }
        programs.sort();
        Ok(programs)
    }
}

fn read(path: &Path) -> Result<Vec<u8>, CorpusError> {
    std::fs::read(path).map_err(|source| CorpusError::Io { path: path.to_path_buf(), source })
}

fn read_text(path: &Path) -> Result<String, CorpusError> {
    std::fs::read_to_string(path).map_err(|source| CorpusError::Io { path: path.to_path_buf(), source })
}

/// Reads `runs.txt` (its header comment documents the keys).
pub fn parse_manifest(text: &str) -> Result<Vec<Run>, CorpusError> {
    let mut runs = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |what: String| CorpusError::Manifest { line: index + 1, what };
        let mut words = line.split_whitespace();
        let (Some(file), Some(entry)) = (words.next(), words.next()) else {
            return Err(bad("a run needs a file and an entry point".into()));
        };
        let mut run =
            Run { file: file.to_string(), entry: entry.to_string(), block: [1; 3], grid: [1; 3], ..Run::default() };
        for word in words {
            let (key, value) = word.split_once('=').ok_or_else(|| bad(format!("{word} is not key=value")))?;
            let number = |text: &str| parse_number(text).ok_or_else(|| bad(format!("bad number {text}")));
            let list = || value.split(',').filter(|item| !item.is_empty());
            let dims = || -> Result<[u32; 3], CorpusError> {
                let numbers = list().map(|n| number(n).map(|n| n as u32)).collect::<Result<Vec<_>, _>>()?;
                numbers.try_into().map_err(|_| bad(format!("{key} needs three numbers")))
            };
            // OFFSET:BYTES ranges (BYTES 4 when left out).
            let pairs = || -> Result<Vec<(usize, usize)>, CorpusError> {
                list()
                    .map(|item| {
                        let (offset, bytes) = item.split_once(':').unwrap_or((item, "4"));
                        Ok((number(offset)? as usize, number(bytes)? as usize))
                    })
                    .collect()
            };
            // The same as the set of byte offsets they cover.
            let ranges = || -> Result<BTreeSet<usize>, CorpusError> {
                Ok(pairs()?.into_iter().flat_map(|(offset, bytes)| offset..offset + bytes).collect())
            };
            match key {
                "params" => {
                    run.params = list()
                        .map(|p| parse_parameter(p).ok_or_else(|| bad(format!("bad parameter {p}"))))
                        .collect::<Result<_, _>>()?
                }
                "block" => run.block = dims()?,
                "grid" => run.grid = dims()?,
                "stride" => run.stride = number(value)? as usize,
                "init" => run.out_starts_as_input = value == "in",
                "approx" => run.approx = ranges()?,
                "approx16" => run.approx16 = ranges()?,
                "varies" => run.varies = ranges()?,
                "sm86_only" => run.sm86_only = ranges()?,
                "textures" => {
                    run.textures = list()
                        .map(|t| RunTexture::parse(t).ok_or_else(|| bad(format!("bad texture {t}"))))
                        .collect::<Result<_, _>>()?
                }
                "surfaces" => {
                    run.surfaces = list()
                        .map(|t| RunSurface::parse(t).ok_or_else(|| bad(format!("bad surface {t}"))))
                        .collect::<Result<_, _>>()?
                }
                "nan" => {
                    run.nan = pairs()?;
                    if let Some((_, bytes)) = run.nan.iter().find(|(_, bytes)| ![2, 4, 8].contains(bytes)) {
                        return Err(bad(format!(
                            "nan= takes FP16, FP32 or FP64 values (2, 4 or 8 bytes), not {bytes}"
                        )));
                    }
                }
                _ => {}
            }
        }
        for param in &run.params {
            let what = match *param {
                Parameter::Texture(n) if n as usize >= run.textures.len() => {
                    format!("tex={n}, but textures= lists {} textures", run.textures.len())
                }
                Parameter::Surface(n) if n as usize >= run.surfaces.len() => {
                    format!("surf={n}, but surfaces= lists {} surfaces", run.surfaces.len())
                }
                _ => continue,
            };
            return Err(CorpusError::Manifest { line: index + 1, what });
        }
        runs.push(run);
    }
    Ok(runs)
}

/// `WxHxD:LAYERS`, each size 1 to 4096 and 1 to 64 layers.
fn parse_shape<'t>(fields: &mut impl Iterator<Item = &'t str>) -> Option<([u32; 3], u32)> {
    let size: Vec<u32> = fields.next()?.split('x').map(|n| parse_number(n).map(|n| n as u32)).collect::<Option<_>>()?;
    let size: [u32; 3] = size.try_into().ok()?;
    let layers = parse_number(fields.next()?)? as u32;
    let sane = size.iter().all(|&n| (1..=4096).contains(&n)) && (1..=64).contains(&layers);
    sane.then_some((size, layers))
}

fn parse_number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn parse_parameter(text: &str) -> Option<Parameter> {
    if let Some(value) = text.strip_prefix("n=") {
        return Some(Parameter::Value(parse_number(value)? as u32));
    }
    if let Some(number) = text.strip_prefix("tex=") {
        return Some(Parameter::Texture(parse_number(number)?.try_into().ok()?));
    }
    if let Some(number) = text.strip_prefix("surf=") {
        return Some(Parameter::Surface(parse_number(number)?.try_into().ok()?));
    }
    let (buffer, offset) = text.split_once('+').unwrap_or((text, "0"));
    let index = ["out", "in", "gen"].iter().position(|name| *name == buffer)?;
    Some(Parameter::Buffer { index, offset: parse_number(offset)? })
}

/// The kernel's parameter block: buffer addresses (8-byte aligned) and 32-bit values, in order.
pub fn parameters(run: &Run, addresses: [u64; 3]) -> Vec<u8> {
    let mut block = Vec::new();
    for param in &run.params {
        match *param {
            Parameter::Buffer { index, offset } => {
                block.resize(block.len().next_multiple_of(8), 0);
                block.extend_from_slice(&(addresses[index] + offset).to_le_bytes());
            }
            Parameter::Value(value) => block.extend_from_slice(&value.to_le_bytes()),
            Parameter::Texture(number) => {
                block.resize(block.len().next_multiple_of(8), 0);
                block.extend_from_slice(&u64::from(number).to_le_bytes());
            }
            Parameter::Surface(number) => {
                block.resize(block.len().next_multiple_of(8), 0);
                block.extend_from_slice(&(run.textures.len() as u64 + u64::from(number)).to_le_bytes());
            }
        }
    }
    block
}

/// Whether two FP32 approximations agree within the special function unit's error: 2e-6 relative, or absolute
/// below 1 (SIN and COS are specified by their absolute error), or are both NaN.
fn close_enough(got: u32, expected: u32) -> bool {
    let (g, e) = (f32::from_bits(got), f32::from_bits(expected));
    if g.is_nan() || e.is_nan() {
        return g.is_nan() && e.is_nan();
    }
    g == e || (g - e).abs() <= 2e-6 * e.abs().max(1.0)
}

/// Whether both FP16 halves of two words agree within one unit in the last place (the special function unit's
/// FP16 results), or are both NaN.
fn close_enough16(got: u32, expected: u32) -> bool {
    [0, 16].into_iter().all(|shift| {
        let (g, e) = ((got >> shift) as u16, (expected >> shift) as u16);
        let is_nan = |half: u16| half & 0x7fff > 0x7c00;
        // Sign and magnitude to one ordered line, where neighbouring values are one apart.
        let ordered = |half: u16| if half & 0x8000 != 0 { -i32::from(half & 0x7fff) } else { i32::from(half) };
        (is_nan(g) && is_nan(e)) || (!is_nan(g) && !is_nan(e) && (ordered(g) - ordered(e)).abs() <= 1)
    })
}

/// Whether the FP64 values of the 8-byte-aligned words around `at` agree to about 20 bits (MUFU.RCP64H seeds
/// that are refined to less than full precision).
fn close_enough64(got: &[u8], expected: &[u8], at: usize) -> bool {
    let start = at & !7;
    let value = |bytes: &[u8]| {
        bytes.get(start..start + 8).map_or(f64::NAN, |b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
    };
    let (g, e) = (value(got), value(expected));
    (g.is_nan() && e.is_nan()) || g == e || (g - e).abs() <= e.abs() * 1e-6
}

/// Whether every byte where `got` and `expected` differ in the word at `at` of `out` lies in a `nan=` value that
/// is a NaN in both.
fn nan_equivalent(run: &Run, got: &[u8], expected: &[u8], at: usize) -> bool {
    let record = at - at % run.stride.max(1);
    let is_nan = |bytes: &[u8]| match *bytes {
        [a, b] => u16::from_le_bytes([a, b]) & 0x7fff > 0x7c00,
        [a, b, c, d] => f32::from_le_bytes([a, b, c, d]).is_nan(),
        _ => bytes.try_into().is_ok_and(|b: [u8; 8]| f64::from_le_bytes(b).is_nan()),
    };
    (at..at + 4).filter(|&byte| got[byte] != expected[byte]).all(|byte| {
        run.nan.iter().any(|&(offset, bytes)| {
            let start = record + offset;
            (start..start + bytes).contains(&byte)
                && got.get(start..start + bytes).is_some_and(is_nan)
                && expected.get(start..start + bytes).is_some_and(is_nan)
        })
    })
}

/// Differences between buffers a run of `isa`'s build left and the GPU's, as readable lines (none: they agree).
pub fn compare(run: &Run, isa: Isa, got: &[u8], expected: &[u8]) -> Vec<String> {
    let mut differences = Vec::new();
    if got.len() != expected.len() {
        differences.push(format!("{} bytes, the GPU's {}", got.len(), expected.len()));
        return differences;
    }
    for (word, (g, e)) in got.chunks_exact(4).zip(expected.chunks_exact(4)).enumerate() {
        let (g, e) =
            (u32::from_le_bytes(g.try_into().expect("4 bytes")), u32::from_le_bytes(e.try_into().expect("4 bytes")));
        if g == e {
            continue;
        }
        let at = word * 4;
        let buffer = at / BUFFER_BYTES;
        let within = at % BUFFER_BYTES;
        let (thread, field) = match within.checked_div(run.stride) {
            Some(thread) => (thread, within % run.stride),
            None => (0, within),
        };
        if buffer == 0 && (field..field + 4).any(|byte| run.varies.contains(&byte)) {
            continue;
        }
        if buffer == 0 && isa == Isa::Sm5x && (field..field + 4).any(|byte| run.sm86_only.contains(&byte)) {
            continue;
        }
        if buffer == 0 && !run.nan.is_empty() && nan_equivalent(run, got, expected, at) {
            continue;
        }
        if buffer == 0
            && (field..field + 4).any(|byte| run.approx.contains(&byte))
            && (close_enough(g, e) || close_enough64(got, expected, at))
        {
            continue;
        }
        if buffer == 0 && (field..field + 4).any(|byte| run.approx16.contains(&byte)) && close_enough16(g, e) {
            continue;
        }
        if buffer >= 3 {
            differences.push(surface_difference(run, at - 3 * BUFFER_BYTES, g, e));
            continue;
        }
        let name = ["out", "in", "gen"][buffer];
        differences
            .push(format!("{name}+{within:#x} (thread {thread}, offset {field:#x}): got {g:#010x}, GPU {e:#010x}"));
    }
    differences
}

/// A difference at byte `at` of the surfaces' texels that follow the buffers.
fn surface_difference(run: &Run, mut at: usize, got: u32, expected: u32) -> String {
    for (number, surface) in run.surfaces.iter().enumerate() {
        if at < surface.bytes() {
            return format!("surface {number}+{at:#x}: got {got:#010x}, GPU {expected:#010x}");
        }
        at -= surface.bytes();
    }
    format!("past the surfaces: got {got:#010x}, GPU {expected:#010x}")
}

fn launch(run: &Run, kernel: &KernelImage) -> Launch {
    Launch { block: run.block, grid: run.grid, shared_bytes: kernel.shared_bytes, local_bytes: LOCAL_BYTES }
}

/// Runs the kernel on the SASS interpreter; the three buffers afterwards, then each surface's texels.
pub fn interpret(run: &Run, kernel: &KernelImage, input: &[u8]) -> Result<Vec<u8>, ExecError> {
    let mut memory = exec::GlobalMemory::new();
    memory.map(BUFFER_ADDRESSES[0], if run.out_starts_as_input { input.to_vec() } else { vec![0; BUFFER_BYTES] });
    memory.map(BUFFER_ADDRESSES[1], input.to_vec());
    memory.map(BUFFER_ADDRESSES[2], vec![0; BUFFER_BYTES]);
    for number in 0..run.surfaces.len() {
        memory.map(surface_address(number), run.surface_bytes(number));
    }
    let launch = launch(run, kernel);
    let mut cbufs = ConstantBuffers::new();
    cbufs.set(0, driver_constants(kernel.isa, &launch, &parameters(run, BUFFER_ADDRESSES))?);
    for (bank, bytes) in &kernel.constants {
        cbufs.set(*bank as usize, bytes.clone());
    }
    let textures = Textures {
        headers: run
            .textures
            .iter()
            .enumerate()
            .map(|(number, texture)| Some(texture.image(&run.texture_bytes(number))))
            .collect(),
        samplers: vec![Some(run.sampler)],
        slot_bank: 0,
        // Surface headers follow the textures' (`Parameter::Surface`).
        surfaces: std::iter::repeat_n(None, run.textures.len())
            .chain(run.surfaces.iter().enumerate().map(|(number, surface)| {
                Some(exec::Surface {
                    dim: surface.dim,
                    size: surface.size,
                    layers: surface.layers,
                    format: surface.format,
                    address: surface_address(number),
                })
            }))
            .collect(),
    };
    run_compute(
        Kernel { isa: kernel.isa, code: &kernel.code, entry: 0, origin: kernel.origin },
        &launch,
        &cbufs,
        &textures,
        &mut memory,
    )?;
    let surfaces = (0..run.surfaces.len()).map(surface_address);
    Ok(BUFFER_ADDRESSES
        .into_iter()
        .chain(surfaces)
        .flat_map(|address| memory.buffer(address).unwrap_or_default().to_vec())
        .collect())
}

/// Where a translated kernel finds the out, in and gen buffers.
#[derive(Debug, Clone, Copy)]
pub enum Placement {
    /// At their device addresses, as CUDA gives them.
    Device,
    /// At these guest GPU addresses, the windows a back end would mirror; `None` leaves a buffer out of them.
    Guest([Option<u64>; 3]),
}

/// What a translated kernel left: the three buffers, whether an access fell outside every window, and the
/// SPIR-V that ran.
pub struct Outcome {
    pub buffers: Vec<u8>,
    pub faulted: bool,
    pub spirv: Vec<u32>,
    pub control_flow: ControlFlow,
}

/// Translates the kernel for `placement` and runs it on the Vulkan device.
pub fn dispatch(
    device: &ComputeDevice,
    run: &Run,
    kernel: &KernelImage,
    input: &[u8],
    placement: Placement,
) -> Result<Outcome, CorpusError> {
    dispatch_laid_out(device, run, kernel, input, placement, Layout::default())
}

/// `dispatch` with the translation's control flow laid out as `layout` says.
pub fn dispatch_laid_out(
    device: &ComputeDevice,
    run: &Run,
    kernel: &KernelImage,
    input: &[u8],
    placement: Placement,
    layout: Layout,
) -> Result<Outcome, CorpusError> {
    let vulkan = |source| CorpusError::Vulkan { entry: run.entry.clone(), source };
    let buffers = (0..3).map(|_| device.buffer(BUFFER_BYTES as u64)).collect::<Result<Vec<_>, _>>().map_err(vulkan)?;
    device.write(&buffers[1], 0, input).map_err(vulkan)?;
    if run.out_starts_as_input {
        device.write(&buffers[0], 0, input).map_err(vulkan)?;
    }
    let fault = device.buffer(FAULT_BYTES).map_err(vulkan)?;
    let (addresses, global) = match placement {
        Placement::Device => ([buffers[0].address(), buffers[1].address(), buffers[2].address()], GlobalMemory::Device),
        Placement::Guest(gpu) => {
            let windows = (0..3)
                .filter_map(|i| {
                    let at = gpu[i]?;
                    Some(Window { gpu: at, size: BUFFER_BYTES as u64, device: buffers[i].address() })
                })
                .collect();
            // A buffer left out gets a GPU address no window covers.
            let address = |i: usize| gpu[i].unwrap_or(0x7f_0000_0000 + i as u64 * 0x10_0000);
            (
                [address(0), address(1), address(2)],
                GlobalMemory::Guest(GuestWindows { windows, fault: fault.address() }),
            )
        }
    };
    let launch = launch(run, kernel);
    let bank0 = driver_constants(kernel.isa, &launch, &parameters(run, addresses))
        .map_err(|source| CorpusError::Exec { entry: run.entry.clone(), source })?;
    let bank = |bank: u8| match bank {
        0 => bank0.clone(),
        _ => kernel.constants.iter().find(|(b, _)| *b == u32::from(bank)).map_or_else(Vec::new, |(_, b)| b.clone()),
    };
    let translate_error = |source| CorpusError::Translate { entry: run.entry.clone(), source };
    let needs = if run.textures.is_empty() && run.surfaces.is_empty() {
        crate::shader::ProgramNeeds::default()
    } else {
        crate::shader::program_needs(kernel).map_err(translate_error)?
    };
    let (surfaces, image_bindings) = run_surfaces(run, &needs.surfaces, &bank)?;
    let texels: Vec<Cow<[u8]>> = (0..run.textures.len()).map(|number| run.texture_bytes(number)).collect();
    let indexed = device.features().sampled_image_array_non_uniform_indexing;
    let (views, run_slots) = run_textures(run, &needs.textures, &bank, &texels, indexed)?;
    let slots: Vec<TextureSlot> = run_slots.iter().map(|slot| slot.slot(&run.sampler)).collect();
    let translation =
        translate_compute_laid_out(kernel, run.block, LOCAL_BYTES, &global, &views, layout).map_err(translate_error)?;
    let mut banks = Vec::new();
    for &number in &translation.constant_banks {
        let bytes = bank(number);
        let buffer = device.buffer(bytes.len().max(4).next_multiple_of(4) as u64).map_err(vulkan)?;
        device.write(&buffer, 0, &bytes).map_err(vulkan)?;
        banks.push(buffer);
    }
    let bindings: Vec<_> = banks.iter().collect();
    let (numbers, mut storage): (Vec<usize>, Vec<StorageImage>) = surfaces.into_iter().unzip();
    let options = DispatchOptions::default();
    let storage_images = (&mut storage[..], &image_bindings[..]);
    device
        .dispatch_images(&translation.spirv, "main", &bindings, &slots, storage_images, run.grid, &options)
        .map_err(vulkan)?;
    let mut result = Vec::new();
    for buffer in &buffers {
        result.extend(device.read(buffer).map_err(vulkan)?);
    }
    // Each surface's texels after the launch: as the dispatch left them, or as they were where it bound none.
    for number in 0..run.surfaces.len() {
        match numbers.iter().position(|&bound| bound == number) {
            Some(index) => result.extend(std::mem::take(&mut storage[index].texels)),
            None => result.extend(run.surface_bytes(number)),
        }
    }
    let flag = FaultWord::Flag as usize * 4;
    let faulted = device.read(&fault).map_err(vulkan)?.get(flag..flag + 4).is_some_and(|word| word != [0; 4]);
    Ok(Outcome { buffers: result, faulted, spirv: translation.spirv, control_flow: translation.control_flow })
}

/// Storage images with the number of the run's surface each holds.
type NumberedImages = Vec<(usize, StorageImage)>;

/// The run's surfaces that `bindings` name (by header index, after the textures'), as storage images in their
/// own formats (the number of each), and which of them each binding is: one whose raw accesses move as many bytes
/// as a texel has, or a formatted one.
fn run_surfaces(
    run: &Run,
    bindings: &[SurfaceBinding],
    bank: &impl Fn(u8) -> Vec<u8>,
) -> Result<(NumberedImages, Vec<usize>), CorpusError> {
    let bad = |what: String| CorpusError::Texture { entry: run.entry.clone(), what };
    let mut images: Vec<(usize, StorageImage)> = Vec::new();
    let mut image_bindings = Vec::new();
    for binding in bindings {
        let header = handle_of(run, binding.handle, bank)? as usize;
        let number = header.checked_sub(run.textures.len()).filter(|&n| n < run.surfaces.len());
        let number = number.ok_or_else(|| bad(format!("surface header {header}, which surfaces= lacks")))?;
        let surface = &run.surfaces[number];
        if binding.buffer {
            return Err(bad(format!(
                "surface {number} accessed as a 1D buffer: the corpus's surfaces are CUDA arrays"
            )));
        }
        let own = surface.format.texel_bytes();
        // A formatted binding's image is RGBA32 of the components as loaded: for unsigned integer channels of 32
        // bits, the texels as they are.
        if binding.texel_bytes == 0 && own != 16 {
            return Err(bad(format!(
                "surface {number} has texels of {own} bytes; the kernel accesses it formatted, which runs here on \
                 four 32-bit channels only"
            )));
        }
        if binding.texel_bytes != 0 && u32::from(binding.texel_bytes) != own {
            return Err(bad(format!(
                "surface {number} has texels of {own} bytes; the kernel accesses it {} bytes at a time",
                binding.texel_bytes
            )));
        }
        if let Some(index) = images.iter().position(|(bound, _)| *bound == number) {
            image_bindings.push(index);
            continue;
        }
        image_bindings.push(images.len());
        let format = match (surface.format.channels, surface.format.channel_bytes) {
            (1, 1) => vk::Format::R8_UINT,
            (1, 2) => vk::Format::R16_UINT,
            (1, _) => vk::Format::R32_UINT,
            (2, _) => vk::Format::R32G32_UINT,
            _ => vk::Format::R32G32B32A32_UINT,
        };
        let image = StorageImage {
            format,
            bytes_per_texel: u64::from(own),
            view_type: crate::vulkan::view_type(surface.dim, surface.layers > 1),
            buffer: false,
            size: surface.size,
            layers: surface.layers,
            texels: run.surface_bytes(number),
        };
        images.push((number, image));
    }
    Ok((images, image_bindings))
}

/// The handle `handle` names, read from the constant-buffer words it comes from (bound instructions read the
/// compute texture buffer, which CUDA's driver points at c[0x0]).
fn handle_of(run: &Run, handle: TextureHandle, bank: &impl Fn(u8) -> Vec<u8>) -> Result<u32, CorpusError> {
    let bad = |what: String| CorpusError::Texture { entry: run.entry.clone(), what };
    let parts = match handle {
        TextureHandle::Traced(parts) => parts,
        TextureHandle::Bound(offset) => [Some(HandlePart { bank: 0, offset, mask: u32::MAX, shift: 0 }), None],
        TextureHandle::Pool => return Err(bad("a run-time handle, which no constant-buffer word holds".into())),
    };
    let mut value = 0;
    for part in parts.iter().flatten() {
        let bytes = bank(part.bank);
        let at = part.offset as usize;
        let word = bytes.get(at..at + 4).ok_or_else(|| bad(format!("a handle outside c[{:#x}]", part.bank)))?;
        value |= part.apply(u32::from_le_bytes(word.try_into().expect("four bytes")));
    }
    Ok(value & 0xf_ffff)
}

/// What a binding takes of the run's textures, each as the binding reads it: one texture, or the pools.
enum RunSlot<'t> {
    Texture(RunTexture, Cow<'t, [u8]>),
    Pool(Vec<(RunTexture, Cow<'t, [u8]>)>),
}

impl RunSlot<'_> {
    /// What the device binds, sampled through `sampler`.
    fn slot(&self, sampler: &Sampler) -> TextureSlot<'_> {
        match self {
            RunSlot::Texture(texture, texels) => {
                TextureSlot::Texture(texture.vulkan(texels, texture.sampling(sampler)))
            }
            RunSlot::Pool(images) => TextureSlot::Pool(TexturePool {
                images: images
                    .iter()
                    .map(|(texture, texels)| texture.vulkan(texels, texture.sampling(sampler)))
                    .collect(),
                samplers: vec![sampling(sampler, false); 2],
            }),
        }
    }
}

/// Texture `texture` (its texels `texels`) as `binding` reads it: a size query, as it is; a read of its own
/// dimension, as `RunTexture::read_as` says; a read of another dimension, one texel of zeros a layer, as a Tegra
/// X1 reads zeros then (nxgpucatch's tex.cpp and texs.cpp: 2D of a 1D array or a 3D texture, a cube of a 2D
/// array, 1D of a 2D texture).
fn read_by<'t>(binding: &TextureBinding, texture: &RunTexture, texels: &'t [u8]) -> (RunTexture, Cow<'t, [u8]>) {
    if binding.query {
        return (*texture, Cow::Borrowed(texels));
    }
    match texture.dim == binding.dim {
        true => texture.read_as(binding.array, texels),
        false => zeros(binding),
    }
}

/// One texel of zeros of one level (an array's: two layers) shaped as `binding` reads it (depths for a compare).
fn zeros(binding: &TextureBinding) -> (RunTexture, Cow<'static, [u8]>) {
    let (array, depth) = (binding.array, binding.depth_compare);
    let zeros = RunTexture { dim: binding.dim, size: [1; 3], layers: 1 + u32::from(array), levels: 1, array, depth };
    (zeros, Cow::Borrowed(&ZEROS[..zeros.texel_bytes() * zeros.image_layers() as usize]))
}

/// What `bindings` take from the run's textures (whose texels are `texels`), and their views: the texture a
/// binding's handle names, read from the constant-buffer words it comes from, or for a run-time handle, all of
/// them as the pool, with one sampler, index 0 (CUDA's handles are the texture numbers, `parameters`); each as
/// the binding reads it (`read_by`), with one more texel of zeros at the end of the pool.
fn run_textures<'t>(
    run: &Run,
    bindings: &[TextureBinding],
    bank: &impl Fn(u8) -> Vec<u8>,
    texels: &'t [Cow<[u8]>],
    indexed: bool,
) -> Result<(Vec<TextureView>, Vec<RunSlot<'t>>), CorpusError> {
    let bad = |what: String| CorpusError::Texture { entry: run.entry.clone(), what };
    let mut views = Vec::new();
    let mut slots = Vec::new();
    for binding in bindings {
        if binding.handle != TextureHandle::Pool {
            let number = handle_of(run, binding.handle, bank)? as usize;
            let texture =
                run.textures.get(number).ok_or_else(|| bad(format!("texture {number}, which textures= lacks")))?;
            let (read, texels) = read_by(binding, texture, &texels[number]);
            views.push(TextureView {
                kind: NumberKind::Float,
                dim: read.dim,
                array: read.array,
                pool: None,
                buffer: false,
            });
            slots.push(RunSlot::Texture(read, texels));
            continue;
        }
        if binding.depth_compare || binding.multisample {
            return Err(bad("a depth compare or multisample fetch through a run-time handle".into()));
        }
        let mut images: Vec<_> =
            run.textures.iter().zip(texels).map(|(texture, texels)| read_by(binding, texture, texels)).collect();
        images.push(zeros(binding));
        let pool = PoolView { headers: run.textures.len() as u32, samplers: 1, sampler_via_header: false, indexed };
        views.push(TextureView {
            kind: NumberKind::Float,
            dim: binding.dim,
            array: binding.array,
            pool: Some(pool),
            buffer: false,
        });
        slots.push(RunSlot::Pool(images));
    }
    Ok((views, slots))
}

/// The texels of a texture of zeros: one texel of up to twelve layers (a cube array of two).
static ZEROS: [u8; 16 * 12] = [0; 16 * 12];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_lines_give_launches_and_bad_ones_name_their_line() {
        let runs = parse_manifest(
            "# comment\nfp32 fp32_ops params=out,in+0x10,n=7 block=128,1,1 init=in stride=512 approx=8:8 varies=4 nan=16:8,30:2 sm86_only=40:4\n",
        )
        .unwrap();
        let run = &runs[0];
        assert_eq!((run.file.as_str(), run.entry.as_str()), ("fp32", "fp32_ops"));
        assert_eq!(
            run.params,
            [
                Parameter::Buffer { index: 0, offset: 0 },
                Parameter::Buffer { index: 1, offset: 16 },
                Parameter::Value(7)
            ]
        );
        assert_eq!((run.block, run.grid, run.out_starts_as_input, run.stride), ([128, 1, 1], [1, 1, 1], true, 512));
        assert_eq!(run.approx, (8..16).collect());
        assert_eq!(run.varies, (4..8).collect());
        assert_eq!(run.nan, [(16, 8), (30, 2)]);
        assert_eq!(run.sm86_only, (40..44).collect());
        // A word the sm_53 build is not compared at, which the sm_86 build is.
        let (got, expected) = (vec![0u8; 4 * BUFFER_BYTES], {
            let mut bytes = vec![0u8; 4 * BUFFER_BYTES];
            bytes[40] = 1;
            bytes
        });
        assert!(compare(run, Isa::Sm5x, &got, &expected).is_empty());
        assert_eq!(compare(run, Isa::Sm86, &got, &expected).len(), 1);
        assert_eq!(
            parameters(run, [0x100, 0x200, 0x300]),
            [0x00, 1, 0, 0, 0, 0, 0, 0, 0x10, 2, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0]
        );
        let error = parse_manifest("\nk e params=bogus\n").unwrap_err();
        assert_eq!(error.to_string(), "runs.txt line 2: bad parameter bogus");
    }

    #[test]
    fn textures_are_declared_named_by_parameters_and_filled_by_their_rule() {
        use crate::shader::ir::TextureDim;
        let runs = parse_manifest("t t params=out,tex=1 textures=2d:8x4x1:1:3,cube:2x2x1:2:1\n").unwrap();
        let run = &runs[0];
        let cube =
            RunTexture { dim: TextureDim::Cube, size: [2, 2, 1], layers: 2, levels: 1, array: true, depth: false };
        assert_eq!(run.textures[1], cube);
        assert_eq!(run.textures[0].extent(2), [2, 1, 1]);
        assert_eq!(run.params[1], Parameter::Texture(1));
        // The handle: texture 1's header, sampler 0, as a 64-bit parameter after the 8-byte address.
        assert_eq!(parameters(run, [0, 0, 0])[8..], [1, 0, 0, 0, 0, 0, 0, 0]);
        // Twelve faces of four RGBA texels; word k is 4096 + k + 0.25.
        let texels = cube.texels(1);
        assert_eq!(texels.len(), 12 * 4 * 16);
        assert_eq!(texels[4..8], 4097.25f32.to_le_bytes());
        let error = parse_manifest("t t params=out,tex=2 textures=3d:4x4x4:1:1\n").unwrap_err();
        assert_eq!(error.to_string(), "runs.txt line 1: tex=2, but textures= lists 1 textures");
        let error = parse_manifest("t t textures=2d:0x4x1:1:1\n").unwrap_err();
        assert_eq!(error.to_string(), "runs.txt line 1: bad texture 2d:0x4x1:1:1");
    }

    #[test]
    fn surfaces_are_declared_named_after_the_textures_and_filled_by_their_rule() {
        use crate::shader::ir::TextureDim;
        let text = "s s params=out,tex=0,surf=1 textures=2d:4x4x1:1:1 surfaces=1d:8x1x1:1:r32,2d:4x4x1:2:rgba32\n";
        let run = &parse_manifest(text).unwrap()[0];
        let format = exec::SurfaceFormat { channels: 4, channel_bytes: 4 };
        assert_eq!(run.surfaces[1], RunSurface { dim: TextureDim::D2, size: [4, 4, 1], layers: 2, format });
        assert_eq!(run.params[2], Parameter::Surface(1));
        // Surface 1's handle is header 2, after the one texture's.
        assert_eq!(parameters(run, [0, 0, 0])[16..], [2, 0, 0, 0, 0, 0, 0, 0]);
        // 32 texels of 16 bytes; byte k is (7k + 16 + 3) mod 251.
        let texels = run.surfaces[1].texels(1);
        assert_eq!((texels.len(), texels[0], texels[1], texels[40]), (512, 19, 26, 48));
        let error = parse_manifest("s s params=surf=2 surfaces=1d:8x1x1:1:r8,1d:8x1x1:1:r8\n").unwrap_err();
        assert_eq!(error.to_string(), "runs.txt line 1: surf=2, but surfaces= lists 2 surfaces");
        // A 1D surface has no height.
        let error = parse_manifest("s s surfaces=1d:8x2x1:1:r32\n").unwrap_err();
        assert_eq!(error.to_string(), "runs.txt line 1: bad surface 1d:8x2x1:1:r32");
    }
}
