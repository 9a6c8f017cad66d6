//! The message formats against switchbrew's "IPC Marshalling" layouts, written out by hand as words, and the
//! parsers against hostile bytes.

use super::cmif::{self, DomainAction, Kind, Reply};
use super::hipc::{Buffer, Builder, Message, ReceiveEntry, ReceiveList, Static};
use super::{ResultCode, hipc_result, sf};
use proptest::prelude::*;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A CMIF request for command 7 with one u64 argument: a process id, one copied and one moved handle, an X
/// descriptor (index 2, 0x80 bytes at 0x35_1234_5678), an A descriptor (mode 1, 0x1_0000_0020 bytes at
/// 0x12_8000_1000), a B descriptor (0x40 bytes at 0x7f_ffff_f000) and one receive-list entry (0x300 bytes at
/// 0x1_2345_0000). Each word encoded by hand from the page's bit tables.
const REQUEST: [u32; 27] = [
    0x01110004, 0x80000c0a, 0x00000023, 0x00000051, 0x00000000, 0x0000aaaa, //
    0x0000bbbb, 0x008050c2, 0x12345678, 0x00000020, 0x80001000, 0x21000005, //
    0x00000040, 0xfffff000, 0xf000001c, 0x00000000, 0x49434653, 0x00000000, //
    0x00000007, 0x00000000, 0x55667788, 0x11223344, 0x00000000, 0x00000000, //
    0x00000000, 0x23450000, 0x03000001,
];

#[test]
fn a_request_parses_as_switchbrew_lays_it_out() {
    let buffer = bytes(&REQUEST);
    let message = Message::parse(&buffer).unwrap();
    assert_eq!(message.message_type, 4);
    assert_eq!(message.pid, Some(0x51));
    assert_eq!((message.copy_handles.as_slice(), message.move_handles.as_slice()), (&[0xaaaa][..], &[0xbbbb][..]));
    assert_eq!(message.statics, [Static { index: 2, address: 0x35_1234_5678, size: 0x80 }]);
    assert_eq!(message.sends, [Buffer { address: 0x12_8000_1000, size: 0x1_0000_0020, mode: 1 }]);
    assert_eq!(message.receives, [Buffer { address: 0x7f_ffff_f000, size: 0x40, mode: 0 }]);
    assert!(message.exchanges.is_empty());
    assert_eq!(message.data, 0x3c..0x64);
    assert_eq!(message.receive_list, ReceiveList::Indexed(vec![ReceiveEntry { address: 0x1_2345_0000, size: 0x300 }]));

    let request = cmif::parse(&buffer, &message, false).unwrap();
    assert_eq!((request.kind, request.command_id, request.domain), (Kind::Request, 7, None));
    assert_eq!(request.arguments[..8], 0x1122_3344_5566_7788u64.to_le_bytes());
}

#[test]
fn the_builder_writes_what_the_parser_reads() {
    let builder = Builder {
        message_type: 4,
        pid: Some(0x51),
        copy_handles: vec![0xaaaa],
        move_handles: vec![0xbbbb],
        statics: vec![Static { index: 2, address: 0x35_1234_5678, size: 0x80 }],
        sends: vec![Buffer { address: 0x12_8000_1000, size: 0x1_0000_0020, mode: 1 }],
        receives: vec![Buffer { address: 0x7f_ffff_f000, size: 0x40, mode: 0 }],
        exchanges: vec![],
        receive_mode: 3,
        receive_entries: vec![ReceiveEntry { address: 0x1_2345_0000, size: 0x300 }],
    };
    let data = bytes(&REQUEST[15..25]);
    let mut buffer = vec![0u8; 0x100];
    let length = builder.write(&data, &mut buffer).unwrap();
    assert_eq!(buffer[..length], bytes(&REQUEST));
}

#[test]
fn every_truncation_of_a_message_is_refused_without_reading_past_it() {
    let buffer = bytes(&REQUEST);
    for length in 0..buffer.len() {
        assert!(Message::parse(&buffer[..length]).is_err(), "a {length}-byte prefix parsed");
    }
}

/// A reply with a moved handle and 8 bytes of output, as libnx's `hipcParseResponse` and `cmifParseResponse`
/// read it: header, special header, handle, then the data words from the next 16-byte boundary with `SFCO`.
#[test]
fn a_reply_is_laid_out_for_the_client() {
    let reply =
        Reply { raw: 0x0123_4567_89ab_cdefu64.to_le_bytes().to_vec(), move_handles: vec![0x1234], ..Reply::default() };
    let mut buffer = vec![0xffu8; 0x100];
    let length = cmif::write_reply(Kind::Request, 4, false, &reply, &mut buffer).unwrap();
    // 16 header bytes (with the handle) end on a 16-byte boundary: no padding, 16 + 8 bytes of CMIF, 16 of slack.
    let expected = [
        0x0000_0000,
        0x8000_000a,
        0x0000_0020, /* one moved handle */
        0x1234,      //
        0x4f43_4653,
        0,
        0,
        0,
        0x89ab_cdef,
        0x0123_4567,
        0,
        0,
        0,
        0,
    ];
    assert_eq!(buffer[..length], bytes(&expected));

    // A failure carries the result and nothing else; on a domain session the domain header comes first (after 8
    // bytes of padding here, which leaves 8 bytes of slack).
    let failed = Reply { result: sf::UNKNOWN_COMMAND_ID, ..reply };
    let length = cmif::write_reply(Kind::Request, 4, true, &failed, &mut buffer).unwrap();
    let expected = [0x0000_0000, 0x0000_000c, 0, 0, 0, 0, 0, 0, 0x4f43_4653, 0, 0x1ba0a, 0, 0, 0];
    assert_eq!(buffer[..length], bytes(&expected));

    // TIPC: the request's type (Atmosphère's OutMessageHeader), then the result as the first data word.
    let length = cmif::write_reply(Kind::Tipc, 17, false, &Reply::default(), &mut buffer).unwrap();
    assert_eq!(buffer[..length], bytes(&[17, 1, 0]));
}

/// A domain request (switchbrew: type, object count, payload size, object id, padding, token), then the CMIF
/// header and arguments, then the object ids.
fn domain_request(action: u32, payload_size: u32, objects: &[u32]) -> Vec<u8> {
    let mut words = vec![0x0000_0004, 0, 0, 0];
    words.extend([action | (objects.len() as u32) << 8 | payload_size << 16, 3, 0, 0]);
    words.extend([0x4943_4653, 0, 9, 0, 0x5555]);
    words.extend(objects);
    words.extend([0, 0, 0]);
    words[1] = words.len() as u32 - 2;
    bytes(&words)
}

#[test]
fn domain_requests_name_their_object_and_pass_object_ids() {
    let buffer = domain_request(1, 20, &[5, 6]);
    let message = Message::parse(&buffer).unwrap();
    let request = cmif::parse(&buffer, &message, true).unwrap();
    assert_eq!((request.command_id, request.domain), (9, Some(DomainAction::Send(3))));
    assert_eq!((request.arguments, request.in_objects.as_slice()), (&0x5555u32.to_le_bytes()[..], &[5, 6][..]));

    let close = domain_request(2, 0, &[]);
    let request = cmif::parse(&close, &Message::parse(&close).unwrap(), true).unwrap();
    assert_eq!(request.domain, Some(DomainAction::Close(3)));

    // Eight object ids declared, room for three.
    let mut too_many_objects = domain_request(1, 20, &[]);
    too_many_objects[0x11] = 8;
    for (buffer, result) in [
        (domain_request(1, 200, &[]), sf::INVALID_HEADER_SIZE),
        (too_many_objects, sf::INVALID_HEADER_SIZE),
        (domain_request(7, 20, &[]), sf::INVALID_IN_HEADER),
        (domain_request(1, 8, &[]), sf::INVALID_HEADER_SIZE),
    ] {
        let message = Message::parse(&buffer).unwrap();
        assert_eq!(cmif::parse(&buffer, &message, true), Err(result));
    }
}

#[test]
fn message_types_decide_the_layer() {
    let kinds = [0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 16, 20].map(Kind::of);
    let unknown = Err(hipc_result::UNKNOWN_COMMAND_TYPE);
    assert_eq!(
        kinds,
        [
            unknown,
            unknown,
            Ok(Kind::Close),
            unknown,
            Ok(Kind::Request),
            Ok(Kind::Control),
            Ok(Kind::Request),
            Ok(Kind::Control),
            unknown,
            Ok(Kind::Close),
            Ok(Kind::Tipc),
            Ok(Kind::Tipc)
        ]
    );
    let tipc = bytes(&[0x0000_0013, 0x0000_0002, 0xdead, 0xbeef]);
    let request = cmif::parse(&tipc, &Message::parse(&tipc).unwrap(), false).unwrap();
    assert_eq!((request.kind, request.command_id, request.arguments.len()), (Kind::Tipc, 3, 8));
}

#[test]
fn result_codes_print_as_error_screens_show_them() {
    assert_eq!(sf::UNKNOWN_COMMAND_ID.to_string(), "2010-0221 (0x1ba0a)");
    assert_eq!(ResultCode::new(1, 123).0, 0xf601);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Any bytes: an error, or a message whose every range lies inside the buffer; CMIF on top never panics.
    #[test]
    fn hostile_bytes_never_escape_the_buffer(words in proptest::collection::vec(any::<u32>(), 0..64)) {
        let buffer = bytes(&words);
        if let Ok(message) = Message::parse(&buffer) {
            prop_assert!(message.data.end <= buffer.len());
            for is_domain in [false, true] {
                let _ = cmif::parse(&buffer, &message, is_domain);
            }
        }
    }

    /// What the builder writes, the parser reads back.
    #[test]
    fn built_messages_parse_back(
        message_type in any::<u16>(),
        pid in proptest::option::of(any::<u64>()),
        handles in proptest::collection::vec(any::<u32>(), 0..4),
        statics in proptest::collection::vec((0u8..64, 0u64..1 << 42, any::<u16>()), 0..3),
        sends in proptest::collection::vec((0u64..1 << 58, 0u64..1 << 36, 0u8..4), 0..3),
        data in proptest::collection::vec(any::<u32>(), 0..16),
    ) {
        let builder = Builder {
            message_type,
            pid,
            copy_handles: handles.clone(),
            move_handles: handles.iter().rev().copied().collect(),
            statics: statics.iter().map(|&(index, address, size)| Static { index, address, size }).collect(),
            sends: sends.iter().map(|&(address, size, mode)| Buffer { address, size, mode }).collect(),
            ..Builder::default()
        };
        let mut buffer = vec![0u8; 0x200];
        let length = builder.write(&bytes(&data), &mut buffer).unwrap();
        let message = Message::parse(&buffer[..length]).unwrap();
        prop_assert_eq!(message.message_type, message_type);
        prop_assert_eq!(message.pid, pid);
        prop_assert_eq!(&message.copy_handles, &builder.copy_handles);
        prop_assert_eq!(&message.move_handles, &builder.move_handles);
        prop_assert_eq!(&message.statics, &builder.statics);
        prop_assert_eq!(&message.sends, &builder.sends);
        let data = bytes(&data);
        prop_assert_eq!(&buffer[message.data.clone()], data.as_slice());
    }
}
