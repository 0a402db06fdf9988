"""The wire protocol's parser: a pure function of bytes, fed whole, in halves, byte by byte,
with noise, truncation, bad CRCs, over-long lines and non-ASCII bytes (pymodbus style)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_station.cards import Card, Suit, parse_card
from dealer_station.hardware import protocol as p

SAMPLES: list[p.Frame] = [
    p.Hello("SHOE1", 0, "DS-400", "2.1.7", "SN-00042"),
    p.CardFrame("SHOE1", 1, parse_card("QH")),
    p.CardFrame("SHOE1", 2, parse_card("10D")),
    p.CardFrame("SHOE1", 3, parse_card("JK")),
    p.CardFrame("READER1", 4, parse_card("AS"), 7),
    p.Status("SHOE1", 5, "DOOR_OPEN"),
    p.ErrorReport("SHOE1", 6, "MISREAD", "card not recognised, sensor 2"),
    p.ErrorReport("SHOE1", 7, "JAM", ""),
    p.Heartbeat("SHOE1", 9999),
    p.Ack("SHOE1", 12, 9999),
    p.Nak("SHOE1", 13, 0),
    p.Query("ANY", 14),
]


def feed_all(chunks: list[bytes]) -> list[p.Frame | p.FrameError]:
    d = p.Deframer()
    out: list[p.Frame | p.FrameError] = []
    for chunk in chunks:
        out.extend(d.feed(chunk))
    return out


def test_crc_is_ccitt_false() -> None:
    assert p.crc(b"123456789") == 0x29B1          # the catalogued check value
    assert p.crc(b"SHOE1,42,CARD,QH") == 0x0920   # the example in docs/protocol.md
    assert p.wrap(b"SHOE1,42,CARD,QH") == b"$SHOE1,42,CARD,QH*0920\r\n"


@pytest.mark.parametrize("frame", SAMPLES, ids=lambda f: f"{f.TYPE}-{f.seq}")
def test_each_frame_whole(frame: p.Frame) -> None:
    raw = frame.encode()
    assert raw.startswith(b"$") and raw.endswith(b"\r\n") and len(raw) <= p.MAX_FRAME
    assert p.decode(raw) == (len(raw), frame)


@pytest.mark.parametrize("frame", SAMPLES, ids=lambda f: f"{f.TYPE}-{f.seq}")
def test_each_frame_in_halves_and_every_split(frame: p.Frame) -> None:
    raw = frame.encode()
    half = len(raw) // 2
    assert p.decode(raw[:half]) == (0, None)          # the first half: need more bytes
    assert feed_all([raw[:half], raw[half:]]) == [frame]
    for cut in range(1, len(raw)):
        assert feed_all([raw[:cut], raw[cut:]]) == [frame], cut


@pytest.mark.parametrize("frame", SAMPLES, ids=lambda f: f"{f.TYPE}-{f.seq}")
def test_each_frame_byte_by_byte(frame: p.Frame) -> None:
    raw = frame.encode()
    d = p.Deframer()
    for i in range(len(raw) - 1):
        assert d.feed(raw[i:i + 1]) == []
    assert d.feed(raw[-1:]) == [frame]
    assert d.pending == 0


def test_every_prefix_needs_more_bytes() -> None:
    raw = SAMPLES[0].encode()
    for n in range(1, len(raw)):
        assert p.decode(raw[:n]) == (0, None)


def test_noise_before_between_and_after_frames_is_skipped() -> None:
    a, b = SAMPLES[1].encode(), SAMPLES[2].encode()
    items = feed_all([b"\x00\xffgarbage" + a + b"\r\n\x13" + b + b"tail"])
    frames = [i for i in items if isinstance(i, p.Frame)]
    problems = [i for i in items if isinstance(i, p.FrameError)]
    assert frames == [SAMPLES[1], SAMPLES[2]]
    assert [e.kind for e in problems] == [p.Problem.NOISE] * 3
    assert problems[0].raw == b"\x00\xffgarbage"


def test_noise_alone_is_consumed_not_kept() -> None:
    used, item = p.decode(b"abc\r\n")
    assert used == 5 and isinstance(item, p.FrameError) and item.kind is p.Problem.NOISE


def test_truncated_frame_resynchronises_on_next_dollar() -> None:
    cut = b"$SHOE1,5,CA"
    good = SAMPLES[1].encode()
    used, item = p.decode(cut + good)
    assert used == len(cut)
    assert isinstance(item, p.FrameError) and item.kind is p.Problem.TRUNCATED
    assert (item.device_id, item.seq) == ("SHOE1", 5)      # readable: the host can NAK it
    assert feed_all([cut, good]) == [item, SAMPLES[1]]


def test_truncated_frame_at_the_end_of_the_stream_waits() -> None:
    d = p.Deframer()
    assert d.feed(b"$SHOE1,5,CARD,Q") == []
    assert d.pending == 15


def test_bad_crc_is_reported_with_readable_seq() -> None:
    raw = bytearray(SAMPLES[1].encode())
    raw[-3] ^= 0x01                                          # change one CRC digit
    used, item = p.decode(bytes(raw))
    assert used == len(raw)
    assert isinstance(item, p.FrameError) and item.kind is p.Problem.BAD_CRC
    assert (item.device_id, item.seq) == ("SHOE1", 1)


def test_corrupt_body_byte_fails_the_crc() -> None:
    raw = SAMPLES[1].encode().replace(b"QH", b"QS")
    _, item = p.decode(raw)
    assert isinstance(item, p.FrameError) and item.kind is p.Problem.BAD_CRC


def test_lower_case_crc_and_bare_lf_are_accepted() -> None:
    body = b"SHOE1,3,CARD,AS"
    raw = b"$" + body + b"*" + (b"%04x" % p.crc(body)) + b"\n"
    assert p.decode(raw) == (len(raw), p.CardFrame("SHOE1", 3, parse_card("AS")))


def test_missing_crc_is_no_crc() -> None:
    for raw in (b"$SHOE1,3,HB\r\n", b"$SHOE1,3,HB*12\r\n", b"$SHOE1,3,HB*12G4\r\n"):
        used, item = p.decode(raw)
        assert used == len(raw)
        assert isinstance(item, p.FrameError) and item.kind is p.Problem.NO_CRC
        assert item.seq == 3


def test_over_long_line_is_dropped_and_the_next_frame_read() -> None:
    long_line = b"$SHOE1,1,HELLO," + b"X" * 200 + b"*0000\r\n"
    good = SAMPLES[1].encode()
    items = feed_all([long_line + good])
    assert isinstance(items[0], p.FrameError) and items[0].kind is p.Problem.TOO_LONG
    assert items[-1] == SAMPLES[1]
    assert all(isinstance(i, p.FrameError) for i in items[:-1])


def test_over_long_line_fed_in_pieces_never_grows_the_buffer() -> None:
    d = p.Deframer()
    d.feed(b"$" + b"A" * 50)
    for _ in range(100):
        d.feed(b"B" * 50)
        assert d.pending < p.MAX_FRAME
    assert d.feed(SAMPLES[2].encode())[-1] == SAMPLES[2]


def test_line_of_exactly_max_frame_is_accepted() -> None:
    overhead = len(p.wrap(b"SHOE1,1,ERROR,E,"))
    text = "t" * (p.MAX_FRAME - overhead)
    body = f"SHOE1,1,ERROR,E,{text}".encode()
    raw = p.wrap(body)
    assert len(raw) == p.MAX_FRAME
    assert p.decode(raw) == (len(raw), p.ErrorReport("SHOE1", 1, "E", text))
    longer = p.wrap(body + b"t")
    _, item = p.decode(longer)
    assert isinstance(item, p.FrameError) and item.kind is p.Problem.TOO_LONG


@pytest.mark.parametrize("bad", [b"\xc3\xa9", b"\x00", b"\x7f", b"\t"])
def test_non_ascii_bytes_in_a_frame(bad: bytes) -> None:
    body = b"SHOE1,8,ERROR,E,caf" + bad
    raw = p.wrap(body)                        # even with a CRC that matches
    used, item = p.decode(raw)
    assert used == len(raw)
    assert isinstance(item, p.FrameError) and item.kind is p.Problem.NON_ASCII
    assert item.seq == 8


@pytest.mark.parametrize(("body", "reason"), [
    (b"SHOE1,1,CARD,ZZ", "unknown card code"),
    (b"SHOE1,1,CARD,QH,seat", "position"),
    (b"SHOE1,1,CARD", "CARD needs"),
    (b"SHOE1,1,STATUS,ASLEEP", "STATUS needs"),
    (b"SHOE1,1,HELLO,only-two,fields", "HELLO needs"),
    (b"SHOE1,1,FLY", "unknown message type"),
    (b"SHOE1,1,HB,extra", "HB takes no fields"),
    (b"SHOE1,1,ACK,x", "ACK needs"),
    (b"SHOE1,12345,HB", "seq"),
    (b"SHOE 1,1,HB", "device id"),
    (b"SHOE1,1", "device id, seq and type"),
])
def test_valid_crc_but_bad_body(body: bytes, reason: str) -> None:
    raw = p.wrap(body)
    used, item = p.decode(raw)
    assert used == len(raw)
    assert isinstance(item, p.FrameError) and item.kind is p.Problem.BAD_BODY
    assert reason in item.detail


def test_bad_body_keeps_readable_seq() -> None:
    _, item = p.decode(p.wrap(b"SHOE1,77,CARD,ZZ"))
    assert isinstance(item, p.FrameError)
    assert (item.device_id, item.seq) == ("SHOE1", 77)


def test_seq_wraps_at_9999() -> None:
    assert p.next_seq(9998) == 9999
    assert p.next_seq(9999) == 0
    raw = p.encode("SHOE1", 9999, p.HB) + p.encode("SHOE1", 0, p.HB)
    assert feed_all([raw]) == [p.Heartbeat("SHOE1", 9999), p.Heartbeat("SHOE1", 0)]
    with pytest.raises(ValueError, match="0-9999"):
        p.encode("SHOE1", 10000, p.HB)
    with pytest.raises(ValueError, match="0-9999"):
        p.encode("SHOE1", -1, p.HB)


@pytest.mark.parametrize(("args", "match"), [
    (("SHOE,1", 1, p.HB), "device id"),
    (("SHOE1", 1, "FLY"), "unknown message type"),
    (("SHOE1", 1, p.STATUS, "A,B"), "without"),
    (("SHOE1", 1, p.HELLO, "m$", "f", "s"), "without"),
    (("SHOE1", 1, p.HELLO, "m", "f*", "s"), "without"),
    (("SHOE1", 1, p.HELLO, "m", "f", "é"), "printable ASCII"),
    (("SHOE1", 1, p.HELLO, "", "f", "s"), "1-32"),
    (("SHOE1", 1, p.ERROR, "E", "x" * 65), "0-64"),
])
def test_encode_refuses_what_the_wire_cannot_carry(args: tuple[object, ...], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        p.encode(*args)  # type: ignore[arg-type]


def test_card_frame_codes() -> None:
    frame = p.CardFrame("SHOE1", 1, Card("10", Suit.CLUBS))
    assert frame.encode().startswith(b"$SHOE1,1,CARD,10C*")
    _, alias = p.decode(p.wrap(b"SHOE1,1,CARD,TC"))
    assert alias == frame


# --------------------------------------------------------------------------- properties

frames_st = st.sampled_from(SAMPLES)
noise_st = st.binary(max_size=20).filter(lambda b: b"$" not in b)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(noise_st, frames_st), max_size=12), st.data())
def test_any_chunking_with_noise_yields_exactly_the_frames(
        parts: list[tuple[bytes, p.Frame]], data: st.DataObject) -> None:
    stream = b"".join(noise + frame.encode() for noise, frame in parts)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
    frames = [i for i in feed_all(chunks) if isinstance(i, p.Frame)]
    assert frames == [frame for _, frame in parts]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_decode_never_raises_and_always_progresses(data: bytes) -> None:
    pos = 0
    while pos < len(data):
        used, item = p.decode(data[pos:])
        if used == 0:
            assert item is None
            assert data[pos:pos + 1] == b"$" and len(data) - pos < p.MAX_FRAME
            break
        assert item is not None
        pos += used
