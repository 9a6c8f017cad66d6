//! Compiling regions on threads of their own, so that the dispatcher goes on (interpreting, or running what is
//! compiled already) while Cranelift works: a cold start no longer stops for each hot region (~1.5 ms a region).
//!
//! Invariants:
//! - Lifting stays on the engine's thread (it reads guest memory and the edge profile); the workers only turn a
//!   lifted `Function` into host code bytes, which the engine installs. So what a region computes does not depend
//!   on this module, only when it starts running compiled; guest results and retired counts stay the reference's.
//! - A job is installed only while the engine still waits for it (`Jobs::finished`): invalidating its pages
//!   in between forgets it, and a later job for the same address has a new number.

use crate::code_cache::StoreTicket;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::Function;
use cranelift_codegen::isa::OwnedTargetIsa;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use crate::edges::PcHasher;
use crate::lift::GUEST_ACCESS;

/// Host code for a region, not installed yet.
pub struct HostCode {
    pub code: Vec<u8>,
    /// Offsets of its guest accesses that may fault (`fault`).
    pub sites: Vec<u32>,
}

/// Compiles a lifted region. A lifter bug that trips an assertion inside Cranelift must not take the emulator
/// down: the error then names it, and the region runs on the reference.
pub fn compile(isa: &OwnedTargetIsa, function: Function) -> Result<HostCode, String> {
    let mut context = cranelift_codegen::Context::for_function(function);
    let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        context
            .compile(&**isa, &mut ControlPlane::default())
            .map(|compiled| {
                let sites = compiled
                    .buffer
                    .traps()
                    .iter()
                    .filter(|trap| trap.code == GUEST_ACCESS)
                    .map(|trap| trap.offset)
                    .collect();
                let relocation_free = compiled.buffer.relocs().is_empty();
                (HostCode { code: compiled.code_buffer().to_vec(), sites }, relocation_free)
            })
            .map_err(|error| format!("Cranelift rejected the lifted block: {:?}", error.inner))
    }))
    .map_err(|_| "Cranelift panicked on the lifted block".to_string())??;
    match compiled {
        (host, true) => Ok(host),
        (_, false) => Err("the lifted block needs relocations".into()),
    }
}

/// What the engine keeps of a region while it compiles: everything but the IR.
pub struct Lifted {
    pub pc: u64,
    pub instructions: u32,
    pub other_pages: Vec<u64>,
    /// Where there is a code cache: what storing it there needs (the compile thread stores it).
    pub ticket: Option<StoreTicket>,
    /// The time lifting (and keying) it took.
    pub lift_time: Duration,
}

pub struct Finished {
    pub lifted: Lifted,
    pub host: Result<HostCode, String>,
    /// Lifting and compiling (not the wait for a worker), as `CompileStats::time` counts them.
    pub time: Duration,
}

struct Job {
    number: u64,
    lifted: Lifted,
    function: Function,
}

/// The engine's side of the workers: jobs sent and not yet installed, by guest address.
pub struct Jobs {
    isa: OwnedTargetIsa,
    /// Started at the first job.
    workers: Option<Workers>,
    /// No worker could be started, or one stopped: jobs are compiled as they are sent.
    no_workers: bool,
    /// Jobs compiled on the engine's thread, for `finished`.
    compiled_here: Vec<(u64, Finished)>,
    waiting: HashMap<u64, Waiting, BuildHasherDefault<PcHasher>>,
    /// The region start of the job holding each instruction address of a waiting job. The reference runs the
    /// region meanwhile, and its other addresses must not heat up into regions of their own.
    covered: HashMap<u64, u64, BuildHasherDefault<PcHasher>>,
    /// Jobs sent, and results received (installed or dropped).
    sent: u64,
    received: u64,
}

/// Threads that take jobs from one queue, first come first served (compiling the newest first leaves the code
/// that heated up first interpreted for longer: busybox gzip ran twice as long cold).
struct Workers {
    jobs: Sender<Job>,
    done: Receiver<(u64, Finished)>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Workers {
    /// Whether every thread still runs: one that stopped (a panic Cranelift's own catch did not see) took its
    /// job with it.
    fn all_running(&self) -> bool {
        self.threads.iter().all(|thread| !thread.is_finished())
    }
}

struct Waiting {
    number: u64,
    /// The pages whose change makes the job stale: its start's and its `other_pages`.
    pages: Vec<u64>,
    addresses: Vec<u64>,
}

impl Jobs {
    pub fn new(isa: OwnedTargetIsa) -> Jobs {
        Jobs {
            isa,
            workers: None,
            no_workers: false,
            compiled_here: Vec::new(),
            waiting: HashMap::default(),
            covered: HashMap::default(),
            sent: 0,
            received: 0,
        }
    }

    /// Whether a region being compiled holds the instruction at `pc`.
    pub fn covers(&self, pc: u64) -> bool {
        self.covered.contains_key(&pc)
    }

    /// Whether the region at `pc` is being compiled.
    pub fn waits_for(&self, pc: u64) -> bool {
        self.waiting.contains_key(&pc)
    }

    /// How many regions are being compiled.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Hands `function`, lifted from the page at `page` with the instructions at `addresses`, to the workers
    /// (started at the first job). Without them, the job is compiled here and now, and `finished` returns it
    /// next.
    pub fn send(&mut self, page: u64, addresses: Vec<u64>, lifted: Lifted, function: Function) {
        self.sent += 1;
        let number = self.sent;
        let mut pages = lifted.other_pages.clone();
        pages.push(page);
        self.covered.extend(addresses.iter().map(|&address| (address, lifted.pc)));
        if let Some(stale) = self.waiting.insert(lifted.pc, Waiting { number, pages, addresses }) {
            self.uncover(lifted.pc, &stale.addresses);
        }
        if self.workers.is_none() && !self.no_workers {
            self.workers = start_workers(&self.isa);
            self.no_workers = self.workers.is_none();
        }
        let job = Job { number, lifted, function };
        let unsent = match &self.workers {
            Some(workers) => workers.jobs.send(job).err().map(|unsent| unsent.0),
            None => Some(job),
        };
        if let Some(job) = unsent {
            self.compiled_here.push(run_job(&self.isa, job));
        }
    }

    /// A finished job the engine still waits for, if any; stale ones are dropped on the way. With `wait`, blocks
    /// until one comes or the workers have returned every job sent.
    pub fn finished(&mut self, wait: bool) -> Option<Finished> {
        loop {
            let (number, finished) = match self.compiled_here.pop() {
                Some(result) => result,
                None if wait && self.received == self.sent => return None,
                None => {
                    let workers = self.workers.as_ref()?;
                    let result = loop {
                        let result = if wait {
                            workers.done.recv_timeout(Duration::from_millis(100)).ok()
                        } else {
                            workers.done.try_recv().ok()
                        };
                        if result.is_some() || !wait || !workers.all_running() {
                            break result;
                        }
                    };
                    match result {
                        Some(result) => result,
                        None if workers.all_running() => return None,
                        None => {
                            // Its jobs are lost: their addresses may heat up again, and compile here.
                            tracing::warn!("fast path: a compile thread stopped; compiling on the engine's thread");
                            (self.workers, self.no_workers) = (None, true);
                            self.received = self.sent;
                            self.waiting.clear();
                            self.covered.clear();
                            return None;
                        }
                    }
                }
            };
            self.received += 1;
            let pc = finished.lifted.pc;
            if self.waiting.get(&pc).is_some_and(|waiting| waiting.number == number) {
                let waiting = self.waiting.remove(&pc).expect("just found");
                self.uncover(pc, &waiting.addresses);
                return Some(finished);
            }
        }
    }

    /// In the child of a host fork, which has only the engine's thread: the jobs are dropped (their regions run
    /// on the reference until they heat up again), and the next job starts new workers. The
    /// old workers' channels are left alone, never dropped: a lock inside them may have been held at the fork.
    pub fn forked(&mut self) {
        std::mem::forget(self.workers.take());
        self.compiled_here.clear();
        self.received = self.sent;
        self.waiting.clear();
        self.covered.clear();
    }

    /// Forgets the jobs that hold instructions of a page in `pages`: their results will not be installed.
    pub fn forget_pages(&mut self, pages: std::ops::Range<u64>) {
        let stale: Vec<u64> = self
            .waiting
            .iter()
            .filter(|(_, waiting)| waiting.pages.iter().any(|page| pages.contains(page)))
            .map(|(&pc, _)| pc)
            .collect();
        for pc in stale {
            let waiting = self.waiting.remove(&pc).expect("just found");
            self.uncover(pc, &waiting.addresses);
        }
    }

    /// Drops the addresses of the job for the region at `pc` from `covered`, where no later job holds them.
    fn uncover(&mut self, pc: u64, addresses: &[u64]) {
        for address in addresses {
            if self.covered.get(address) == Some(&pc) {
                self.covered.remove(address);
            }
        }
    }
}

fn run_job(isa: &OwnedTargetIsa, job: Job) -> (u64, Finished) {
    let started = Instant::now();
    let host = compile(isa, job.function);
    let time = job.lifted.lift_time + started.elapsed();
    // File system work, kept off the engine's thread; a failure only costs a compile next time.
    if let (Ok(compiled), Some(ticket)) = (&host, &job.lifted.ticket)
        && let Err(error) = ticket.store(job.lifted.instructions, &compiled.code, &compiled.sites)
    {
        tracing::warn!("code cache: could not store the block at {:#x}: {error}", job.lifted.pc);
    }
    (job.number, Finished { lifted: job.lifted, host, time })
}

/// Compile threads for an engine: one per host CPU the engine's own thread leaves, at least one, at most
/// `DEFAULT_MAX_WORKERS` (more gained nothing on 16 cores); `TANDEM_COMPILE_THREADS=N` sets another number.
const DEFAULT_MAX_WORKERS: usize = 4;

fn worker_count() -> usize {
    let spare = std::thread::available_parallelism().map_or(1, |cpus| cpus.get().saturating_sub(1));
    let default = spare.clamp(1, DEFAULT_MAX_WORKERS);
    match std::env::var("TANDEM_COMPILE_THREADS") {
        Err(_) => default,
        Ok(value) => match value.parse::<usize>() {
            Ok(count) if (1..=256).contains(&count) => count,
            _ => {
                tracing::warn!("TANDEM_COMPILE_THREADS={value:?} is not a number from 1 to 256; using {default}");
                default
            }
        },
    }
}

fn start_workers(isa: &OwnedTargetIsa) -> Option<Workers> {
    let (jobs, incoming) = channel::<Job>();
    let incoming = std::sync::Arc::new(std::sync::Mutex::new(incoming));
    let (outgoing, done) = channel();
    let mut threads = Vec::new();
    for index in 0..worker_count() {
        let (isa, incoming, outgoing) = (isa.clone(), incoming.clone(), outgoing.clone());
        let spawned = std::thread::Builder::new().name(format!("tandem-compile-{index}")).spawn(move || {
            loop {
                let job = incoming.lock().map_err(drop).and_then(|queue| queue.recv().map_err(drop));
                let Ok(job) = job else { break };
                if outgoing.send(run_job(&isa, job)).is_err() {
                    break;
                }
            }
        });
        match spawned {
            Ok(thread) => threads.push(thread),
            Err(error) => tracing::warn!("fast path: compile thread {index} not started: {error}"),
        }
    }
    if threads.is_empty() {
        tracing::warn!("fast path: no compile thread; compiling on the engine's thread");
        return None;
    }
    Some(Workers { jobs, done, threads })
}
