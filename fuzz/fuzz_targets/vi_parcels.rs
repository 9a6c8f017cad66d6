//! Hostile parcels: any bytes as IGraphicBufferProducer transactions (any code) on a layer's queue, after a
//! well-formed start or none. The queue answers with a status in the reply parcel, or the run stops with a typed
//! error when a queued buffer cannot be shown; never a panic, never a read outside the parcel.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use tandem_hle::service::nvdrv::gpu_host::GpuHost;
use tandem_hle::service::vi::display::Display;
use tandem_reference::memory::{GuestMemory, Perm};

#[derive(Arbitrary, Debug)]
struct Transaction {
    code: u8,
    /// Prefix the interface token, as every real request has.
    token: bool,
    body: Vec<u8>,
    /// Rewrite the header's data size and offset.
    header: Option<(u32, u32)>,
}

thread_local! {
    static MEMORY: GuestMemory = {
        let mut memory = GuestMemory::new().expect("guest memory");
        memory.map(0x10000, 0x10000, Perm::RW).expect("pages");
        memory
    };
}

fn parcel(transaction: &Transaction) -> Vec<u8> {
    let mut data = Vec::new();
    if transaction.token {
        let name = "android.gui.IGraphicBufferProducer";
        data.extend_from_slice(&0x100u32.to_le_bytes());
        data.extend_from_slice(&(name.len() as u32).to_le_bytes());
        data.extend(name.encode_utf16().chain([0]).flat_map(u16::to_le_bytes));
        data.resize(data.len().next_multiple_of(4), 0);
    }
    data.extend_from_slice(&transaction.body[..transaction.body.len().min(0x1000)]);
    let (size, offset) = transaction.header.unwrap_or((data.len() as u32, 0x10));
    let mut parcel = Vec::new();
    for word in [size, offset, 0, 0x10 + data.len() as u32] {
        parcel.extend_from_slice(&word.to_le_bytes());
    }
    parcel.extend_from_slice(&data);
    parcel
}

fuzz_target!(|transactions: Vec<Transaction>| {
    let mut display = Display::default();
    let layer = display.create_layer(0).expect("an empty display has room for a layer");
    let binder = display.open_layer(layer, 0).expect("a new layer opens");
    let mut gpu = GpuHost::default();
    MEMORY.with(|memory| {
        for transaction in transactions.iter().take(32) {
            let code = u32::from(transaction.code % 20);
            if let Ok(reply) = display.transact(binder, code, &parcel(transaction), memory, &mut gpu, 0) {
                assert!(reply.len() >= 16 + 4, "every reply carries at least its status");
            }
        }
    });
});
