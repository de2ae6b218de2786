"""Write BGZF (the blocked gzip of bgzip/htslib) from Python, for tests.

A BGZF block is a gzip member whose header has the extra subfield 'BC'
holding the member's size minus 1; the file usually ends with an empty
block (the EOF marker).  Only zlib is needed (no bgzip binary).
"""
import struct
import zlib

BGZF_EOF = bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000")


def bgzf_block(data: bytes, level: int = 6) -> bytes:
    """One BGZF block holding `data` (at most 64 KiB)."""
    assert len(data) <= 65536
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    size = 12 + 6 + len(body) + 8
    assert size <= 65536, "block too large: compress less per block"
    head = (b"\x1f\x8b\x08\x04" + b"\0\0\0\0" + b"\0\xff" + struct.pack("<H", 6)
            + b"BC" + struct.pack("<HH", 2, size - 1))
    return head + body + struct.pack("<II", zlib.crc32(data), len(data))


def bgzf(data: bytes, sizes=(65280,), eof: bool = True, level: int = 6) -> bytes:
    """`data` as BGZF blocks whose data sizes cycle through `sizes` (a size
    0 writes an empty block), then the EOF block if `eof`."""
    out = []
    at = i = 0
    while at < len(data):
        n = sizes[i % len(sizes)]
        i += 1
        out.append(bgzf_block(data[at:at + n], level))
        at += n
    if eof:
        out.append(BGZF_EOF)
    return b"".join(out)
