//! The GPU as the driver sees it: address spaces, channels and syncpoints. The nvdrv service (hle) creates
//! them, maps memory and submits GPFIFO entries; the front end runs them at once, in submission order, and
//! says which channels wait.
//!
//! Invariant (determinism): channels run only when the driver calls in, in channel-id order, until none can
//! make progress; nothing depends on host timing.

use crate::channel::{Channel, ChannelError, Segment};
use crate::mmu::{GuestMemory, Mmu, MmuError};
use crate::syncpoint::Syncpoints;
use crate::trace::{Event, Recorder, RecordingMemory};
use std::cell::RefCell;
use std::collections::BTreeMap;

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("GPU channel {channel}: {source}{}", note.as_ref().map(|note| format!(" ({note})")).unwrap_or_default())]
pub struct GpuError {
    pub channel: u32,
    pub source: ChannelError,
    /// Why the GPU has no back end, when that is what stopped the channel.
    pub note: Option<String>,
}

/// Makes the back end when the GPU first has work (so that programs that never use the GPU open no device).
pub type BackendFactory = Box<dyn FnOnce() -> Result<Box<dyn crate::backend::Backend>, String>>;

impl GpuError {
    /// Whether Tandem lacks what the channel asked for (rather than the stream being malformed).
    pub fn is_unimplemented(&self) -> bool {
        use crate::backend::BackendError;
        use crate::engine::EngineError;
        match &self.source {
            ChannelError::Engine { source: EngineError::Unimplemented { .. }, .. } => true,
            ChannelError::Engine { source: EngineError::Backend { source, .. }, .. } => matches!(
                source,
                BackendError::Unimplemented { .. }
                    | BackendError::Translate(crate::shader::TranslateError::Unimplemented { .. })
            ),
            ChannelError::Host { problem, .. } => problem.contains("not implemented"),
            _ => false,
        }
    }
}

#[derive(Default)]
pub struct Gpu {
    pub syncpoints: Syncpoints,
    address_spaces: BTreeMap<u32, Mmu>,
    channels: BTreeMap<u32, Channel>,
    next_id: u32,
    /// The GPU timer, in its 614.4 MHz ticks: reports and semaphore releases carry it. The driver sets it from
    /// guest time.
    pub timestamp: u64,
    /// What renders; `None` until one is set (the front end alone runs without).
    backend: Option<Box<dyn crate::backend::Backend>>,
    backend_factory: Option<BackendFactory>,
    /// Why the factory could not make one.
    backend_failure: Option<String>,
    /// The command trace being recorded, if any.
    recorder: Option<RefCell<Recorder>>,
}

impl Gpu {
    fn new_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    pub fn set_backend(&mut self, backend: Box<dyn crate::backend::Backend>) {
        self.backend = Some(backend);
    }

    /// Sets how to make the back end once there is work.
    pub fn set_backend_factory(&mut self, factory: BackendFactory) {
        self.backend_factory = Some(factory);
    }

    pub fn has_backend(&self) -> bool {
        self.backend.is_some()
    }

    /// Records every call from here on into a command trace.
    pub fn start_recording(&mut self, recorder: Recorder) {
        self.recorder = Some(RefCell::new(recorder));
    }

    /// Writes out what the trace holds so far.
    pub fn flush_trace(&mut self) -> std::io::Result<()> {
        self.recorder.as_ref().map_or(Ok(()), |recorder| recorder.borrow_mut().flush())
    }

    fn record(&self, event: Event) {
        if let Some(recorder) = &self.recorder {
            recorder.borrow_mut().record(&event);
        }
    }

    pub fn create_address_space(&mut self) -> u32 {
        let id = self.new_id();
        self.address_spaces.insert(id, Mmu::default());
        self.record(Event::CreateAddressSpace { id });
        id
    }

    /// Drops an address space; channels bound to it fail when they next run.
    pub fn destroy_address_space(&mut self, id: u32) {
        self.address_spaces.remove(&id);
        self.record(Event::DestroyAddressSpace { id });
    }

    /// Maps `size` bytes of guest memory at `guest` to `va` in address space `space`.
    pub fn map(&mut self, space: u32, va: u64, guest: u64, size: u64) -> Result<(), MmuError> {
        let mmu = self.address_spaces.get_mut(&space).ok_or(MmuError::Unmapped { va })?;
        mmu.map(va, guest, size)?;
        self.record(Event::Map { space, va, guest, size });
        Ok(())
    }

    pub fn unmap(&mut self, space: u32, va: u64, size: u64) -> Result<(), MmuError> {
        let mmu = self.address_spaces.get_mut(&space).ok_or(MmuError::Unmapped { va })?;
        mmu.unmap(va, size)?;
        self.record(Event::Unmap { space, va, size });
        Ok(())
    }

    /// Makes `va..va + size` sparse (unmapped pages read as zeros) or, with `sparse` false, ordinary again.
    pub fn set_sparse(&mut self, space: u32, va: u64, size: u64, sparse: bool) -> Result<(), MmuError> {
        let mmu = self.address_spaces.get_mut(&space).ok_or(MmuError::Unmapped { va })?;
        if sparse {
            mmu.set_sparse(va, size)?
        } else {
            mmu.clear_sparse(va, size)?
        }
        self.record(Event::Sparse { space, va, size, sparse });
        Ok(())
    }

    pub fn create_channel(&mut self) -> u32 {
        let id = self.new_id();
        self.channels.insert(id, Channel::default());
        self.record(Event::CreateChannel { id });
        id
    }

    pub fn channel_mut(&mut self, id: u32) -> Option<&mut Channel> {
        self.channels.get_mut(&id)
    }

    /// Puts `channel`'s addresses in address space `space`.
    pub fn bind(&mut self, channel: u32, space: u32) {
        if let Some(target) = self.channels.get_mut(&channel) {
            target.address_space = Some(space);
            self.record(Event::Bind { channel, space });
        }
    }

    pub fn destroy_channel(&mut self, id: u32) {
        self.channels.remove(&id);
        self.record(Event::DestroyChannel { id });
    }

    /// A CPU increment of a syncpoint (nvhost-ctrl).
    pub fn increment_syncpoint(&mut self, id: u32) -> Result<u32, crate::syncpoint::NoSuchSyncpoint> {
        let value = self.syncpoints.increment(id)?;
        self.record(Event::Increment { syncpoint: id });
        Ok(value)
    }

    /// Brings a syncpoint to every value reserved on it: the work that would have made the increments is gone
    /// (a closed channel's), so no fence waits for ever.
    pub fn complete_syncpoint(&mut self, id: u32) -> Result<(), crate::syncpoint::NoSuchSyncpoint> {
        let value = self.syncpoints.complete(id)?;
        self.record(Event::Reach { syncpoint: id, value });
        Ok(())
    }

    /// A recorded completion, replayed: the syncpoint reaches `value`.
    pub fn reach_syncpoint(&mut self, id: u32, value: u32) -> Result<(), crate::syncpoint::NoSuchSyncpoint> {
        self.syncpoints.raise_to(id, value)?;
        self.record(Event::Reach { syncpoint: id, value });
        Ok(())
    }

    /// Queues `segments` on `channel` without running them (a replay runs where the run ran).
    pub fn queue(&mut self, channel: u32, segments: Vec<Segment>) {
        if self.channels.contains_key(&channel) {
            self.record(Event::Submit { channel, segments: segments.clone() });
            self.channels.get_mut(&channel).expect("checked").submit(segments);
        }
    }

    /// Queues `segments` on `channel` and runs every channel as far as it goes.
    pub fn submit(&mut self, channel: u32, segments: Vec<Segment>, memory: &dyn GuestMemory) -> Result<(), GpuError> {
        self.queue(channel, segments);
        self.run(memory)
    }

    /// Makes the back end from the factory, the first time it is needed.
    fn ensure_backend(&mut self) {
        if self.backend.is_none()
            && let Some(factory) = self.backend_factory.take()
        {
            match factory() {
                Ok(backend) => {
                    tracing::info!(target: "gpu", backend = backend.name(), "GPU back end ready");
                    self.backend = Some(backend);
                }
                Err(failure) => {
                    tracing::error!(target: "gpu", "no GPU back end: {failure}");
                    self.backend_failure = Some(failure);
                }
            }
        }
    }

    /// The pixels of a frame the display shows, `width` of them a row.
    pub fn present(
        &mut self,
        present: &crate::backend::Present,
        width: u32,
        memory: &dyn GuestMemory,
    ) -> Result<crate::backend::Frame, String> {
        self.ensure_backend();
        let Some(backend) = self.backend.as_deref_mut() else {
            let why = self.backend_failure.clone().unwrap_or_else(|| "none was set up".into());
            return Err(format!("presenting a frame needs a GPU back end ({why})"));
        };
        let frame = match &self.recorder {
            Some(recorder) => {
                let frame = backend.present(present, &RecordingMemory { inner: memory, recorder });
                recorder.borrow_mut().finish_run(&Event::Present { present: *present, width });
                frame
            }
            None => backend.present(present, memory),
        };
        frame.map(|frame| crate::trace::crop(frame, width)).map_err(|error| error.to_string())
    }

    /// Runs channels, in id order and again while any makes progress, until every one is idle or waiting.
    /// Whether a channel has work left: commands not yet run, or a wait that holds it.
    pub fn is_busy(&self) -> bool {
        self.channels.values().any(Channel::is_busy)
    }

    pub fn run(&mut self, memory: &dyn GuestMemory) -> Result<(), GpuError> {
        if !self.is_busy() {
            return Ok(());
        }
        self.ensure_backend();
        let recorder = self.recorder.take();
        let result = match &recorder {
            Some(recorder) => self.run_channels(&RecordingMemory { inner: memory, recorder }),
            None => self.run_channels(memory),
        };
        if let Some(recorder) = &recorder {
            recorder.borrow_mut().finish_run(&Event::Run { timestamp: self.timestamp });
        }
        self.recorder = recorder;
        result
    }

    fn run_channels(&mut self, memory: &dyn GuestMemory) -> Result<(), GpuError> {
        loop {
            let mut progressed = false;
            for (&id, channel) in &mut self.channels {
                if !channel.is_busy() {
                    continue;
                }
                let before = channel.position();
                let mmu = channel.address_space.and_then(|space| self.address_spaces.get(&space));
                let backend = self.backend.as_deref_mut();
                if let Err(source) = channel.run(mmu, memory, &mut self.syncpoints, self.timestamp, backend) {
                    // The hardware stops a faulted channel; its remaining work is dropped.
                    channel.discard_work();
                    let needed_backend = matches!(
                        source,
                        ChannelError::Engine { source: crate::engine::EngineError::NoBackend { .. }, .. }
                    );
                    let note = self.backend_failure.clone().filter(|_| needed_backend);
                    return Err(GpuError { channel: id, source, note });
                }
                progressed |= channel.position() != before;
            }
            if !progressed {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests;
