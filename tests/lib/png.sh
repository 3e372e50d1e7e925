# png.sh - sourced by the tests of condition reports' media:
#   png FILE W H R G B   a real PNG of W x H pixels of one colour (python's zlib)
png() {
	python3 - "$@" <<'PNG'
import struct, sys, zlib
path, w, h, r, g, b = sys.argv[1], *map(int, sys.argv[2:])
def ch(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
raw = b''.join(b'\x00' + bytes([r, g, b] * w) for _ in range(h))
open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + ch(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
    + ch(b'IDAT', zlib.compress(raw)) + ch(b'IEND', b''))
PNG
}
