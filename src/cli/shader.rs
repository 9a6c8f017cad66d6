//! `tandem shader`: NVIDIA shader machine code for people debugging a shader: disassembly, runs on the SASS
//! interpreter (the shader reference path), translation to SPIR-V.

use anyhow::{Context, bail};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use tandem_gpu::sass::corpus::Corpus;
use tandem_gpu::sass::cubin::{Cubin, KernelImage};
use tandem_gpu::sass::exec::{ConstantBuffers, GlobalMemory, Kernel, Launch, driver_constants, run_compute};
use tandem_gpu::sass::{Isa, coverage, differential, sm5x, sm86};
use tandem_gpu::shader::{self, translate_compute};
use tandem_gpu::vulkan::ComputeDevice;

#[derive(Subcommand)]
pub enum ShaderCommand {
    /// Disassemble a shader (a cubin or raw code) as nvdisasm writes it.
    Disasm(InputArgs),
    /// Run a compute kernel on the SASS interpreter and write its buffers out.
    Run(RunArgs),
    /// Translate a kernel to SPIR-V (for spirv-val, spirv-dis, or a Vulkan back end).
    Translate(TranslateArgs),
    /// Every opcode of both instruction sets with its evidence: the decoder against nvdisasm, the interpreter
    /// and the translator against what an NVIDIA GPU computed for the oracle corpus's kernels.
    Coverage(CoverageArgs),
}

#[derive(Args)]
pub struct CoverageArgs {
    /// The oracle corpus: `gpu/tests/sass` of a Tandem source tree (the one this binary was built from by
    /// default).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Only this instruction set.
    #[arg(long, value_enum)]
    pub isa: Option<IsaArg>,
    /// Translate without running the translations on a Vulkan device (no translator verification then).
    #[arg(long)]
    pub no_gpu: bool,
    /// Random instances of each opcode translated and compared with the interpreter.
    #[arg(long, default_value_t = 12)]
    pub differential_cases: u64,
    /// The graphics test programs: `tests/programs` of a Tandem source tree, their NROs built in `bin/` (`cargo
    /// xtask programs`); each that passes its own checks counts for the opcodes of the shaders it embeds.
    /// The source tree this binary was built from by default.
    #[arg(long)]
    pub programs: Option<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StageArg {
    Compute,
    /// A vertex program: its shader program header (0x50 bytes before SM5x code, 0x80 before SM86), then its
    /// code, as the 3D engine reads it.
    Vertex,
    /// A tessellation control program, header first likewise, taking patches of --control-points (set 3).
    TessControl,
    /// A tessellation evaluation program, header first likewise: patches of --control-points into triangles
    /// (set 4).
    TessEval,
    /// A geometry program, header first likewise, taking triangles in (its descriptor set is 2).
    Geometry,
    /// A pixel program, header first likewise (its descriptor set is 1).
    Pixel,
}

#[derive(Args)]
pub struct TranslateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The pipeline stage the shader runs in. Vertex, geometry and pixel programs are raw code behind their shader
    /// program header; the pixel stage's targets take floats, its textures hold floats.
    #[arg(long, value_enum, default_value = "compute")]
    pub stage: StageArg,
    /// Threads per block (the workgroup size): X[,Y[,Z]].
    #[arg(long, default_value = "32")]
    pub block: String,
    /// Local memory per thread, in bytes.
    #[arg(long, default_value_t = 4096)]
    pub local_bytes: u32,
    /// The control points of a tessellation program's patches.
    #[arg(long, default_value_t = 3)]
    pub control_points: u32,
    /// The per-patch words past the tessellation levels that the control program hands on (default: a control
    /// program's own PerPatchAttributeCount less the six levels; none for an evaluation program).
    #[arg(long)]
    pub patch_words: Option<u32>,
    /// The texture header and sampler pools that handles known only at run time index: HEADERS,SAMPLERS, bound as
    /// arrays indexed per invocation (a device with descriptor indexing).
    #[arg(long, default_value = "1024,256")]
    pub pools: String,
    /// Print the constructs (loops, scopes, ifs) the program's blocks were laid out in.
    #[arg(long)]
    pub structure: bool,
    /// Where to write the SPIR-V module.
    #[arg(short, long)]
    pub output: PathBuf,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum IsaArg {
    Sm5x,
    Sm86,
}

impl From<IsaArg> for Isa {
    fn from(isa: IsaArg) -> Isa {
        match isa {
            IsaArg::Sm5x => Isa::Sm5x,
            IsaArg::Sm86 => Isa::Sm86,
        }
    }
}

#[derive(Args)]
pub struct InputArgs {
    /// A cubin (what ptxas writes) or raw code (then --isa says which).
    pub file: PathBuf,
    /// The kernel of a cubin that holds several.
    #[arg(long)]
    pub entry: Option<String>,
    /// The instruction set of raw code.
    #[arg(long, value_enum)]
    pub isa: Option<IsaArg>,
    /// Where raw SM5x code starts in its program region (a graphics program's offset + 0x50, its header's size),
    /// which absolute branches (JMP, JMX, JCAL) count from.
    #[arg(long, value_parser = parse_origin, default_value = "0")]
    pub origin: u32,
}

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Threads per block: X[,Y[,Z]].
    #[arg(long, default_value = "32")]
    pub block: String,
    /// Blocks: X[,Y[,Z]].
    #[arg(long, default_value = "1")]
    pub grid: String,
    /// The kernel's parameters in order: `zero:BYTES` (a zeroed buffer), `file:PATH` (a buffer holding the
    /// file), `u32:VALUE`, `u64:VALUE`. Buffers are passed by address.
    #[arg(long = "param")]
    pub params: Vec<String>,
    /// Folder to write each buffer to after the run (`param0.bin`, ...).
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// Local memory per thread, in bytes.
    #[arg(long, default_value_t = 4096)]
    pub local_bytes: u32,
}

pub fn run(command: ShaderCommand) -> anyhow::Result<ExitCode> {
    match command {
        ShaderCommand::Disasm(args) => disasm(&args),
        ShaderCommand::Run(args) => run_kernel(&args),
        ShaderCommand::Translate(args) => translate(&args),
        ShaderCommand::Coverage(args) => coverage(&args),
    }
}

/// `--origin`: a hexadecimal offset, with or without `0x`.
fn parse_origin(text: &str) -> Result<u32, String> {
    let digits = text.strip_prefix("0x").unwrap_or(text);
    u32::from_str_radix(digits, 16).map_err(|e| format!("{text:?} is not a hexadecimal offset: {e}"))
}

/// The kernel the arguments name: from a cubin, or raw code with --isa.
fn load(args: &InputArgs) -> anyhow::Result<KernelImage> {
    let bytes = std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?;
    if bytes.starts_with(b"\x7fELF") {
        let cubin = Cubin::parse(&bytes).with_context(|| format!("reading the cubin {}", args.file.display()))?;
        return Ok(cubin.kernel(args.entry.as_deref())?);
    }
    let Some(isa) = args.isa else {
        bail!("{} is not a cubin: say which instruction set its code is with --isa sm5x|sm86", args.file.display());
    };
    let isa = isa.into();
    let name = args.file.file_stem().map_or_else(String::new, |stem| stem.to_string_lossy().into_owned());
    Ok(KernelImage { name, isa, code: bytes, constants: Vec::new(), shared_bytes: 0, origin: args.origin })
}

fn disasm(args: &InputArgs) -> anyhow::Result<ExitCode> {
    let kernel = load(args)?;
    let listing = match kernel.isa {
        Isa::Sm5x => sm5x::listing(&kernel.code)?,
        Isa::Sm86 => sm86::listing(&kernel.code)?,
    };
    print!("{listing}");
    Ok(ExitCode::SUCCESS)
}

fn dimensions(text: &str, what: &str) -> anyhow::Result<[u32; 3]> {
    let mut dims = [1u32; 3];
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        bail!("--{what} {text}: expected X, X,Y or X,Y,Z");
    }
    for (dim, part) in dims.iter_mut().zip(parts) {
        *dim = part.trim().parse().with_context(|| format!("--{what} {text}: {part:?} is not a number"))?;
    }
    Ok(dims)
}

fn number(text: &str) -> anyhow::Result<u64> {
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.with_context(|| format!("{text:?} is not a number"))
}

/// Where the interpreter maps parameter buffer `index`.
fn buffer_address(index: usize) -> u64 {
    0x1_0000_0000 * (index as u64 + 1)
}

fn run_kernel(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let kernel = load(&args.input)?;
    let launch = Launch {
        block: dimensions(&args.block, "block")?,
        grid: dimensions(&args.grid, "grid")?,
        shared_bytes: kernel.shared_bytes.max(48 * 1024),
        local_bytes: args.local_bytes,
    };
    let mut memory = GlobalMemory::new();
    let mut parameters = Vec::new();
    let mut buffers = Vec::new();
    for (index, param) in args.params.iter().enumerate() {
        let (kind, value) = param.split_once(':').with_context(|| format!("--param {param}: expected KIND:VALUE"))?;
        match kind {
            "zero" | "file" => {
                let bytes = if kind == "zero" {
                    vec![0; usize::try_from(number(value)?)?]
                } else {
                    std::fs::read(value).with_context(|| format!("--param {param}: reading {value}"))?
                };
                let address = buffer_address(index);
                memory.map(address, bytes);
                buffers.push(address);
                parameters.resize(parameters.len().next_multiple_of(8), 0);
                parameters.extend_from_slice(&address.to_le_bytes());
            }
            "u32" => parameters.extend_from_slice(&(number(value)? as u32).to_le_bytes()),
            "u64" => {
                parameters.resize(parameters.len().next_multiple_of(8), 0);
                parameters.extend_from_slice(&number(value)?.to_le_bytes());
            }
            _ => bail!("--param {param}: the kinds are zero:BYTES, file:PATH, u32:VALUE and u64:VALUE"),
        }
    }
    let mut cbufs = ConstantBuffers::new();
    cbufs.set(0, driver_constants(kernel.isa, &launch, &parameters)?);
    for (bank, bytes) in &kernel.constants {
        cbufs.set(*bank as usize, bytes.clone());
    }
    let stats = run_compute(
        Kernel { isa: kernel.isa, code: &kernel.code, entry: 0, origin: kernel.origin },
        &launch,
        &cbufs,
        &tandem_gpu::sass::exec::Textures::default(),
        &mut memory,
    )
    .with_context(|| format!("running {} on the SASS interpreter", kernel.name))?;
    if let Some(dir) = &args.dump {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for (index, address) in buffers.iter().enumerate() {
            let path = dir.join(format!("param{index}.bin"));
            std::fs::write(&path, memory.buffer(*address).unwrap_or_default())
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    println!(
        "run: {} ({}), block {:?}, grid {:?}: {} lane-instructions{}",
        kernel.name,
        kernel.isa,
        launch.block,
        launch.grid,
        stats.lane_instructions,
        args.dump.as_ref().map_or(String::new(), |dir| format!(", buffers in {}", dir.display()))
    );
    Ok(ExitCode::SUCCESS)
}

fn translate(args: &TranslateArgs) -> anyhow::Result<ExitCode> {
    let mut kernel = load(&args.input)?;
    let count = |part: &str| part.trim().parse::<u32>();
    let (headers, samplers) = match args.pools.split_once(',').map(|(h, s)| (count(h), count(s))) {
        Some((Ok(headers), Ok(samplers))) => (headers, samplers),
        _ => bail!("--pools {}: expected HEADERS,SAMPLERS (two numbers)", args.pools),
    };
    let pool = shader::ir::PoolView { headers, samplers, sampler_via_header: false, indexed: true };
    let header = match args.stage {
        StageArg::Compute => None,
        _ => Some(graphics_header(&mut kernel, args.stage)?),
    };
    // Textures hold floats of their binding's own shape; run-time handles index the pools.
    let views: Vec<shader::TextureView> = shader::program_needs(&kernel)
        .map(|needs| needs.textures.iter().map(|binding| shader::TextureView::float(binding, Some(pool))).collect())
        .unwrap_or_default();
    let (translation, set) = match header {
        None => {
            let block = dimensions(&args.block, "block")?;
            (translate_compute(&kernel, block, args.local_bytes, &shader::GlobalMemory::Device, &views), 0)
        }
        Some(header) => {
            let global = shader::GlobalMemory::Device;
            let local_bytes = header.local_memory_bytes();
            let vertex = shader::VertexInterface {
                header,
                next_stage_reads: 0,
                depth_minus_one_to_one: false,
                point_size: None,
                layer: false,
                capture: Default::default(),
                user_clip: Default::default(),
            };
            let fragment = shader::FragmentInterface {
                header,
                targets: [Some(shader::NumberKind::Float); 8],
                alpha_test: None,
                saturate: [None; 8],
                dual_source: false,
                swizzles: shader::UNSWIZZLED,
                // As for a draw of triangles: no point sprite coordinate.
                point_coord: None,
                polygon_stipple: None,
                window_clip: None,
                sample_mask: false,
                early_fragment_tests: false,
                post_depth_coverage: false,
                quad_sample_masks: None,
            };
            let geometry = shader::GeometryInterface {
                header,
                input: shader::GeometryInput::Triangles,
                next_stage_reads: 0,
                depth_minus_one_to_one: false,
                layer: false,
                point_size: None,
                capture: Default::default(),
                // The rasteriser's default stream.
                raster_stream: 0,
                user_clip: Default::default(),
            };
            let patch_words = args.patch_words.unwrap_or_else(|| match args.stage {
                StageArg::TessControl => header.per_patch_words().saturating_sub(6),
                _ => 0,
            });
            let control = shader::TessControlInterface {
                header,
                patch_vertices: args.control_points,
                next_stage_reads: 0,
                patch_words,
            };
            let evaluation = shader::TessEvalInterface {
                header,
                patch_vertices: args.control_points,
                patch_words,
                tessellator: shader::Tessellator {
                    domain: shader::TessDomain::Triangles,
                    spacing: shader::TessSpacing::Equal,
                    output: shader::TessOutput::TrianglesCw,
                },
                next_stage_reads: 0,
                depth_minus_one_to_one: false,
                layer: false,
                point_size: None,
                user_clip: Default::default(),
            };
            let stage = match args.stage {
                StageArg::Vertex => shader::Stage::Vertex(&vertex),
                StageArg::TessControl => shader::Stage::TessControl(&control),
                StageArg::TessEval => shader::Stage::TessEval(&evaluation),
                StageArg::Geometry => shader::Stage::Geometry(&geometry),
                _ => shader::Stage::Fragment(&fragment),
            };
            (shader::translate_graphics(&kernel, stage, local_bytes, &global, &views), stage.descriptor_set())
        }
    };
    let translation = translation.with_context(|| format!("translating {} ({})", kernel.name, kernel.isa))?;
    let bytes: Vec<u8> = translation.spirv.iter().flat_map(|word| word.to_le_bytes()).collect();
    std::fs::write(&args.output, &bytes).with_context(|| format!("writing {}", args.output.display()))?;
    let banks = translation.constant_banks.iter().map(|bank| format!("c[{bank:#x}]"));
    // A pool takes two bindings: its images, then its samplers.
    let textures = translation.textures.iter().flat_map(|texture| {
        let what =
            format!("texture {} ({:?}{})", texture.handle, texture.dim, if texture.array { " array" } else { "" });
        match texture.handle {
            shader::ir::TextureHandle::Pool => vec![format!("{what} images"), format!("{what} samplers")],
            _ => vec![what],
        }
    });
    let surfaces = translation.surfaces.iter().map(|surface| {
        let view = match surface.texel_bytes {
            0 => "its own format".to_string(),
            bytes => format!("{bytes}-byte texels"),
        };
        let shape = match (surface.buffer, surface.array) {
            (true, _) => "buffer".to_string(),
            (false, array) => format!("{:?}{}", surface.dim, if array { " array" } else { "" }),
        };
        format!("surface {} ({shape}, {view})", surface.handle)
    });
    let bindings: Vec<String> = banks
        .chain(textures)
        .chain(surfaces)
        .enumerate()
        .map(|(binding, what)| format!("{what} at binding {binding}"))
        .collect();
    println!(
        "translate: {} ({}) -> {} ({} words); set {set}: {}",
        kernel.name,
        kernel.isa,
        args.output.display(),
        translation.spirv.len(),
        if bindings.is_empty() { "no bindings".to_string() } else { bindings.join(", ") }
    );
    match &translation.control_flow {
        shader::structure::ControlFlow::Structured(_) if args.structure => {
            print!("control flow: structured\n{}", translation.control_flow)
        }
        shader::structure::ControlFlow::Structured(_) => println!("control flow: structured"),
        shader::structure::ControlFlow::Dispatcher(why) => println!("control flow: a dispatcher loop ({why})"),
    }
    Ok(ExitCode::SUCCESS)
}

/// A graphics program's header, taken off the front of `kernel`'s code, checked against the stage asked for.
fn graphics_header(kernel: &mut KernelImage, stage: StageArg) -> anyhow::Result<shader::sph::ProgramHeader> {
    use shader::sph::{ShaderType, header_bytes, parse_program_header};
    let header = parse_program_header(kernel.isa, &kernel.code)
        .map_err(|problem| anyhow::anyhow!("{}: its shader program header: {problem}", kernel.name))?;
    let wanted = match stage {
        StageArg::Vertex => ShaderType::Vertex,
        StageArg::TessControl => ShaderType::TessellationInit,
        StageArg::TessEval => ShaderType::Tessellation,
        StageArg::Geometry => ShaderType::Geometry,
        _ => ShaderType::Pixel,
    };
    match header.shader_type() {
        Some(found) if found == wanted => {}
        Some(found) => bail!("{}: its header is a {found:?} program's, not a {wanted:?} program's", kernel.name),
        None => bail!("{}: its header names no stage Tandem knows", kernel.name),
    }
    kernel.code.drain(..header_bytes(kernel.isa));
    Ok(header)
}

/// A graphics test program run for the coverage report: whether it passed its own checks, and its shaders.
struct GraphicsProgram {
    name: String,
    passed: bool,
    shaders: Vec<EmbeddedShader>,
}

/// A shader a test program embeds (`.incbin "shaders/NAME.STAGE.bin"`), its header left out.
struct EmbeddedShader {
    path: PathBuf,
    isa: Isa,
    code: Vec<u8>,
}

/// Runs each graphics test program of `dir` (`gpu-*.c`, built as `bin/gpu-*.nro`) headless with this binary, on
/// the reference back end, and reads the shaders it embeds. A program passes when it exits cleanly and reports
/// no failures (`NAME: 0 failures`), as `tests/cli.rs` requires.
fn graphics_programs(dir: &std::path::Path) -> anyhow::Result<Vec<GraphicsProgram>> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading the test programs in {}: pass --programs", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
            name.starts_with("gpu-") && name.ends_with(".c")
        })
        .collect();
    sources.sort();
    let tandem = std::env::current_exe()?;
    let mut programs = Vec::new();
    for source in sources {
        let name = source.file_stem().and_then(|stem| stem.to_str()).unwrap_or_default().to_string();
        let text = std::fs::read_to_string(&source).with_context(|| format!("reading {}", source.display()))?;
        let mut shaders = Vec::new();
        for file in embedded_shader_files(&text) {
            shaders.push(read_embedded_shader(&dir.join("shaders").join(file))?);
        }
        let nro = dir.join("bin").join(format!("{name}.nro"));
        println!("running {} for the graphics opcodes", nro.display());
        let output = std::process::Command::new(&tandem)
            .arg("run")
            .arg(&nro)
            .arg("--headless")
            .output()
            .with_context(|| format!("running {}", nro.display()))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let passed = output.status.success() && stdout.contains(&format!("{name}: 0 failures\n"));
        if !passed {
            println!("  {name} did not pass: its shaders count for nothing\n{stdout}");
        }
        programs.push(GraphicsProgram { name, passed, shaders });
    }
    Ok(programs)
}

/// The files `.incbin "shaders/FILE"` names in a test program's source.
fn embedded_shader_files(source: &str) -> Vec<&str> {
    source.split(".incbin \\\"shaders/").skip(1).filter_map(|rest| rest.split("\\\"").next()).collect()
}

/// A test program's shader, its code past the header: the instruction set and the header's length are what its
/// assembly source beside it says (`sass::assemble`, whose output the committed binary is).
fn read_embedded_shader(path: &std::path::Path) -> anyhow::Result<EmbeddedShader> {
    let mut code = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let source = path.with_extension("sasm");
    let assembly = std::fs::read_to_string(&source).with_context(|| format!("reading {}", source.display()))?;
    let layout = tandem_gpu::sass::assemble::assembled_program(&assembly)
        .with_context(|| format!("assembling {}", source.display()))?;
    anyhow::ensure!(code.len() >= layout.header_bytes, "{}: shorter than its header", path.display());
    code.drain(..layout.header_bytes);
    Ok(EmbeddedShader { path: path.to_path_buf(), isa: layout.isa, code })
}

fn coverage(args: &CoverageArgs) -> anyhow::Result<ExitCode> {
    let dir = args.corpus.clone().unwrap_or_else(Corpus::source_tree);
    let corpus = Corpus::open(&dir).with_context(|| {
        format!("reading the oracle corpus {}: pass --corpus with a Tandem checkout's gpu/tests/sass", dir.display())
    })?;
    let device = if args.no_gpu {
        None
    } else {
        let device = ComputeDevice::new().context(
            "opening a Vulkan device to run the translations (install mesa-vulkan-drivers for lavapipe, or pass \
             --no-gpu)",
        )?;
        Some(device)
    };
    let gpu = std::fs::read_to_string(dir.join("cuda/results/device.txt")).unwrap_or_default();
    println!(
        "oracle: {} kernels of {}, results from {}",
        corpus.runs.len(),
        dir.display(),
        gpu.lines().next().unwrap_or("?")
    );
    match &device {
        Some(device) => println!("translations run on: {}", device.name()),
        None => println!("translations not run (--no-gpu): the translator column shows what translates"),
    }
    let isas = match args.isa {
        Some(isa) => vec![isa.into()],
        None => vec![Isa::Sm5x, Isa::Sm86],
    };
    let rendered = match &device {
        Some(_) => {
            let dir = args
                .programs
                .clone()
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs"));
            graphics_programs(&dir)?
        }
        None => Vec::new(),
    };
    let mut summaries = Vec::new();
    for isa in isas {
        let differential_steps = match &device {
            Some(_) if args.differential_cases > 0 => differential::tested_opcodes(isa).len(),
            _ => 0,
        };
        let programs =
            tandem_gpu::sass::programs::all()?.iter().filter(|program| program.kernel.isa == isa.into()).count();
        let progress = ProgressBar::new((corpus.runs.len() + programs + differential_steps) as u64);
        progress.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").expect("the template is well formed"),
        );
        let mut evidence = coverage::gather(isa, &corpus, device.as_ref(), args.differential_cases, |entry| {
            progress.inc(1);
            progress.set_message(format!("{isa} {entry}"));
        })
        .with_context(|| format!("gathering the {isa} evidence from {}", dir.display()))?;
        progress.finish_and_clear();
        for program in rendered.iter().filter(|program| program.passed) {
            for shader in program.shaders.iter().filter(|shader| shader.isa == isa) {
                evidence
                    .record_rendering(&program.name, &shader.code)
                    .with_context(|| format!("decoding {}", shader.path.display()))?;
            }
        }
        println!("\n{isa}: kernels");
        for kernel in &evidence.kernels {
            let outcome = |result: &Result<(), String>| match result {
                Ok(()) => format!("matches {}", kernel.oracle),
                Err(why) => why.clone(),
            };
            println!("  {:<16} interpreter: {}", kernel.entry, outcome(&kernel.interpreter));
            if let Some(translator) = &kernel.translator {
                println!("  {:<16} translator:  {}", "", outcome(translator));
            }
        }
        println!(
            "\n{isa}: opcodes (decoder: nvdisasm = every instance reads as nvdisasm's; interpreter, translator: gpu = \
             in a kernel whose run matched the GPU's, program = in a hand-built program that left the words its \
             definition gives, interp = random instances matched the interpreter, yes = implemented)"
        );
        print!("{}", coverage::render(&evidence));
        summaries.push(evidence.summary());
    }
    println!();
    for summary in summaries {
        println!("{summary}");
    }
    Ok(ExitCode::SUCCESS)
}
