#!/usr/bin/python3
# Regenerates the decoder test vectors of tests/test_image_decoders.c: small odd-sized images
# in every layout the BMP, PNM, TIFF and PNG decoders read, written by Pillow or by the small
# writers below (for what Pillow cannot write: Adam7, 16-bit colour, predictor 2, RLE, ...),
# each with the pixels Pillow decodes from it (NAME.rgb: np.array(img.convert('RGB')), the
# ONNX reference's decoder) and a line "NAME H W" in manifest.txt.
# Run by hand with Debian's Python (PIL 9.4): /usr/bin/python3 tests/images/make.py
import io, os, struct, zlib
import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261203)
W, H = 7, 5  # odd sizes: row padding, partial bytes, partial Adam7 passes
out = []


def save(name, data):
    im = Image.open(io.BytesIO(data))
    rgb = np.array(im.convert('RGB'), dtype=np.uint8)
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(data)
    with open(os.path.join(HERE, name + '.rgb'), 'wb') as f:
        f.write(rgb.tobytes())
    out.append(f'{name} {rgb.shape[0]} {rgb.shape[1]}')


def pil(img, fmt, **kw):
    b = io.BytesIO()
    img.save(b, fmt, **kw)
    return b.getvalue()


def images():
    rgb = Image.fromarray(rng.integers(0, 256, (H, W, 3), dtype=np.uint8), 'RGB')
    rgba = Image.fromarray(rng.integers(0, 256, (H, W, 4), dtype=np.uint8), 'RGBA')
    grey = Image.fromarray(rng.integers(0, 256, (H, W), dtype=np.uint8), 'L')
    bw = grey.point(lambda v: 255 if v > 127 else 0).convert('1')
    pal = rgb.quantize(13)
    g16 = Image.fromarray(rng.integers(0, 400, (H, W), dtype=np.uint16))  # I;16: above 255 clips
    la = Image.merge('LA', (grey, grey.point(lambda v: 255 - v)))
    return rgb, rgba, grey, bw, pal, g16, la


# ---- PNG ---------------------------------------------------------------------------------
def chunk(t, d):
    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)


def png_raw(w, h, depth, ct, rows_fn, interlace=0, plte=None, level=9, filters=(0,)):
    """rows_fn(pw, ph, x0, dx, y0, dy) -> list of raw row bytes of the pass."""
    passes = [(0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2), (0, 1, 1, 2)] if interlace else [(0, 1, 0, 1)]
    ch = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ct]
    bpp = max(1, ch * depth // 8)
    raw = b''
    k = 0
    for x0, dx, y0, dy in passes:
        pw, ph = (w - x0 + dx - 1) // dx if w > x0 else 0, (h - y0 + dy - 1) // dy if h > y0 else 0
        if not pw or not ph:
            continue
        prev = bytes((pw * ch * depth + 7) // 8)
        for row in rows_fn(pw, ph, x0, dx, y0, dy):
            ft = filters[k % len(filters)]
            k += 1
            raw += bytes([ft]) + filt(ft, row, prev, bpp)
            prev = row
    s = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ct, 0, 0, interlace))
    if plte:
        s += chunk(b'PLTE', plte)
    z = zlib.compress(raw, level)
    s += chunk(b'IDAT', z[:len(z) // 2]) + chunk(b'IDAT', z[len(z) // 2:])  # two IDATs
    return s + chunk(b'IEND', b'')


def filt(ft, row, prev, bpp):
    o = bytearray(len(row))
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if ft == 0: p = 0
        elif ft == 1: p = a
        elif ft == 2: p = b
        elif ft == 3: p = (a + b) // 2
        else:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            p = a if pa <= pb and pa <= pc else b if pb <= pc else c
        o[i] = (row[i] - p) & 255
    return bytes(o)


def pack_rows(arr, depth):
    """arr [h, w, ch] of samples -> rows_fn for png_raw."""
    def rows(pw, ph, x0, dx, y0, dy):
        res = []
        for j in range(ph):
            s = arr[y0 + j * dy, x0::dx][:pw].reshape(-1)
            if depth == 16:
                res.append(s.astype('>u2').tobytes())
            elif depth == 8:
                res.append(s.astype(np.uint8).tobytes())
            else:
                bits = ''.join(format(int(v), f'0{depth}b') for v in s)
                bits += '0' * (-len(bits) % 8)
                res.append(bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8)))
        return res
    return rows


def pngs():
    rgb, rgba, grey, bw, pal, g16, la = images()
    save('png_rgb.png', pil(rgb, 'PNG'))
    save('png_rgba.png', pil(rgba, 'PNG'))
    save('png_grey.png', pil(grey, 'PNG'))
    save('png_bw.png', pil(bw, 'PNG'))
    save('png_pal.png', pil(pal, 'PNG'))
    save('png_pal4.png', pil(pal, 'PNG', bits=4))
    save('png_grey16.png', pil(g16, 'PNG'))
    save('png_la.png', pil(la, 'PNG'))
    save('png_trns.png', pil(rgb, 'PNG', transparency=(1, 2, 3)))
    for depth in (1, 2, 4):
        a = rng.integers(0, 1 << depth, (H, W, 1))
        save(f'png_grey{depth}_adam7.png', png_raw(W, H, depth, 0, pack_rows(a, depth), interlace=1, filters=(0, 1, 2, 3, 4)))
        plte = bytes(rng.integers(0, 256, 3 * ((1 << depth) - 1), dtype=np.uint8))  # one entry short: Pillow's ramp
        save(f'png_pal{depth}_adam7.png', png_raw(W, H, depth, 3, pack_rows(a, depth), interlace=1, plte=plte))
    for ct, ch in ((2, 3), (6, 4), (4, 2), (0, 1)):
        a = rng.integers(0, 65536, (H, W, ch))
        if ct == 0:
            a = rng.integers(0, 300, (H, W, ch))
        save(f'png_c{ct}_16_adam7.png', png_raw(W, H, 16, ct, pack_rows(a, 16), interlace=1, filters=(4, 3, 2, 1, 0)))
        save(f'png_c{ct}_16.png', png_raw(W, H, 16, ct, pack_rows(a, 16), filters=(1, 2, 3, 4, 0)))
    a = rng.integers(0, 256, (H, W, 3))
    save('png_rgb_stored.png', png_raw(W, H, 8, 2, pack_rows(a, 8), level=0, filters=(4,)))
    save('png_rgb_fixed.png', png_raw(W, H, 8, 2, pack_rows(np.zeros((H, W, 3), int) + 7, 8), level=1))
    save('png_1x1.png', png_raw(1, 1, 8, 6, pack_rows(np.array([[[1, 2, 3, 4]]]), 8), interlace=1))
    big = np.repeat(np.repeat(rng.integers(0, 256, (6, 8, 3)), 5, 0), 5, 1)  # 30x40, long matches
    save('png_rgb_30x40.png', pil(Image.fromarray(big.astype(np.uint8)), 'PNG'))


# ---- BMP ---------------------------------------------------------------------------------
def bmp(w, h, bits, rows, pal=b'', compression=0, top_down=False, masks=b'', hsize=40, colors=0):
    """rows: the pixel data as stored (bottom-up unless top_down), already padded."""
    data = b''.join(rows)
    off = 14 + hsize + len(masks) + len(pal)
    if hsize == 12:
        info = struct.pack('<IHHHH', 12, w, h, 1, bits)
    else:
        info = struct.pack('<IiiHHIIiiII', hsize, w, -h if top_down else h, 1, bits, compression, len(data), 2835, 2835, colors, 0)
        info += bytes(hsize - 40)
    return b'BM' + struct.pack('<IHHI', off + len(data), 0, 0, off) + info + masks + pal + data


def pad4(b):
    return b + bytes(-len(b) % 4)


def bmps():
    rgb, rgba, grey, bw, pal, g16, la = images()
    save('bmp_rgb.bmp', pil(rgb, 'BMP'))
    save('bmp_grey.bmp', pil(grey, 'BMP'))
    save('bmp_bw.bmp', pil(bw, 'BMP'))
    save('bmp_pal.bmp', pil(pal, 'BMP'))
    px = rng.integers(0, 256, (H, W, 4), dtype=np.uint8)
    pal16 = bytes(rng.integers(0, 256, 16 * 4, dtype=np.uint8))
    idx4 = rng.integers(0, 16, (H, W))
    rows4 = [pad4(bytes((int(r[i]) << 4 | (int(r[i + 1]) if i + 1 < W else 0)) for i in range(0, W, 2))) for r in idx4[::-1]]
    save('bmp_pal4.bmp', bmp(W, H, 4, rows4, pal16, colors=16))
    save('bmp_pal4_short.bmp', bmp(W, H, 4, rows4, pal16[:10 * 4], colors=10))  # indices past the palette
    save('bmp_rgb32.bmp', bmp(W, H, 32, [r.tobytes() for r in px[::-1]]))
    save('bmp_rgb24_topdown.bmp', bmp(W, H, 24, [pad4(r[:, :3].tobytes()) for r in px], top_down=True))
    p16 = rng.integers(0, 65536, (H, W), dtype=np.uint16)
    save('bmp_555.bmp', bmp(W, H, 16, [pad4(r.astype('<u2').tobytes()) for r in p16[::-1]]))
    save('bmp_565.bmp', bmp(W, H, 16, [pad4(r.astype('<u2').tobytes()) for r in p16[::-1]], compression=3,
                             masks=struct.pack('<III', 0xF800, 0x7E0, 0x1F)))
    save('bmp_bf32_v4.bmp', bmp_v4_bitfields(px))
    save('bmp_core12.bmp', bmp(W, H, 24, [pad4(r[:, :3].tobytes()) for r in px[::-1]], hsize=12))
    pal256 = bytes(rng.integers(0, 256, 256 * 4, dtype=np.uint8))
    # RLE8: an encoded run, an absolute run, end of lines, end of bitmap (no delta: Pillow 9.4
    # reads a delta's two bytes and then two more; berth follows the format and Pillow >= 10)
    rle8 = bytes([3, 5, 0, 4, 1, 2, 3, 4, 0, 0,  # row 0: 5 5 5 1 2 3 4
                  7, 9, 0, 0,  # row 1
                  2, 1, 5, 6, 0, 0,  # row 2, ended early (index 0 after)
                  0, 3, 8, 9, 10, 0, 2, 11, 0, 0,  # row 3: absolute 3 (padded), run
                  9, 12, 0, 1])  # row 4 (a run longer than the row: cut)
    save('bmp_rle8.bmp', bmp(W, H, 8, [rle8], pal256, compression=1, colors=256))
    rle4 = bytes([5, 0x12, 0, 4, 0x34, 0x56, 2, 0x78, 0, 0, 7, 0xab, 0, 0, 7, 0xcd, 0, 0, 7, 0xef, 0, 0, 7, 0x11, 0, 1])
    save('bmp_rle4.bmp', bmp(W, H, 4, [rle4], pal16, compression=2, colors=16))


def bmp_v4_bitfields(px):
    masks = struct.pack('<IIII', 0xFF, 0xFF00, 0xFF0000, 0xFF000000)  # RGBA in the V4 header
    data = b''.join(r.tobytes() for r in px[::-1])
    info = struct.pack('<IiiHHIIiiII', 108, W, H, 1, 32, 3, len(data), 0, 0, 0, 0) + masks + bytes(108 - 56)
    off = 14 + 108
    return b'BM' + struct.pack('<IHHI', off + len(data), 0, 0, off) + info + data


# ---- PNM ---------------------------------------------------------------------------------
def pnms():
    rgb, rgba, grey, bw, pal, g16, la = images()
    save('pnm_p6.ppm', pil(rgb, 'PPM'))
    save('pnm_p5.pgm', pil(grey, 'PPM'))
    save('pnm_p4.pbm', pil(bw, 'PPM'))
    save('pnm_p5_16.pgm', pil(Image.fromarray(rng.integers(0, 400, (H, W), dtype=np.uint16)).convert('I'), 'PPM'))
    a = rng.integers(0, 101, (H, W, 3))
    save('pnm_p6_100.ppm', b'P6\n# a comment\n7 5\n100\n' + a.astype(np.uint8).tobytes())
    a = rng.integers(0, 1001, (H, W, 3))
    save('pnm_p6_1000.ppm', b'P6 7 5 1000\n' + a.astype('>u2').tobytes())
    a = rng.integers(0, 1001, (H, W))
    save('pnm_p5_1000.pgm', b'P5\n7 5\n1000\n' + a.astype('>u2').tobytes())
    a = rng.integers(0, 2, (H, W))
    save('pnm_p1.pbm', b'P1\n# c\n7 5\n' + b'\n'.join(b''.join(b'%d' % v for v in r) for r in a) + b'\n')
    a = rng.integers(0, 8, (H, W))
    save('pnm_p2.pgm', b'P2 7 5 7\n' + b'\n'.join(b' '.join(b'%d' % v for v in r) for r in a) + b'\n')
    a = rng.integers(0, 300, (H, W, 3))
    save('pnm_p3.ppm', b'P3\n7 5\n#x\n299\n' + b' '.join(b'%d' % v for v in a.reshape(-1)) + b'\n')


# ---- TIFF --------------------------------------------------------------------------------
def tiff(w, h, bps, spp, photometric, strips, be=False, compression=1, predictor=1, cmap=None, rps=None):
    """strips: the stored (already compressed) strip bytes."""
    e = '>' if be else '<'
    tags = [(256, 4, [w]), (257, 4, [h]), (258, 3, [bps] * spp), (259, 3, [compression]), (262, 3, [photometric]),
            (273, 4, None), (277, 3, [spp]), (278, 4, [rps or h]), (279, 4, [len(s) for s in strips])]
    if predictor != 1:
        tags.append((317, 3, [predictor]))
    if cmap is not None:
        tags.append((320, 3, list(cmap)))
    if spp in (2, 4):
        tags.append((338, 3, [2]))
    tags.sort()
    body = b''
    off_data = 8
    offsets = []
    for s in strips:
        offsets.append(off_data + len(body))
        body += s + bytes(len(s) & 1)
    ifd_at = 8 + len(body)
    extra_at = ifd_at + 2 + 12 * len(tags) + 4
    ifd, extra = b'', b''
    for tag, typ, vals in tags:
        if vals is None:
            vals = offsets
        size = {3: 2, 4: 4}[typ]
        raw = b''.join(struct.pack(e + ('H' if typ == 3 else 'I'), v) for v in vals)
        if len(raw) <= 4:
            field = raw + bytes(4 - len(raw))
        else:
            field = struct.pack(e + 'I', extra_at + len(extra))
            extra += raw + bytes(len(raw) & 1)
        ifd += struct.pack(e + 'HHI', tag, typ, len(vals)) + field
    head = (b'MM\x00*' if be else b'II*\x00') + struct.pack(e + 'I', ifd_at)
    return head + body + struct.pack(e + 'H', len(tags)) + ifd + b'\x00\x00\x00\x00' + extra


def hdiff(a):
    d = a.copy()
    d[:, 1:] = a[:, 1:] - a[:, :-1]
    return d


def tiffs():
    rgb, rgba, grey, bw, pal, g16, la = images()
    for comp in (None, 'packbits', 'tiff_lzw', 'tiff_deflate', 'tiff_adobe_deflate'):
        tag = comp or 'raw'
        save(f'tiff_rgb_{tag}.tif', pil(rgb, 'TIFF', compression=comp) if comp else pil(rgb, 'TIFF'))
    save('tiff_grey_lzw.tif', pil(grey, 'TIFF', compression='tiff_lzw'))
    save('tiff_bw.tif', pil(bw, 'TIFF'))
    save('tiff_pal.tif', pil(pal, 'TIFF', compression='packbits'))
    save('tiff_rgba.tif', pil(rgba, 'TIFF', compression='tiff_deflate'))
    save('tiff_grey16.tif', pil(g16, 'TIFF'))
    save('tiff_la.tif', pil(la, 'TIFF'))
    px = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    rows = [px[i].tobytes() for i in range(H)]
    save('tiff_rgb_be_strips.tif', tiff(W, H, 8, 3, 2, [b''.join(rows[0:2]), b''.join(rows[2:4]), rows[4]], be=True, rps=2))
    d = hdiff(px.reshape(H, W * 3).reshape(H, W, 3).astype(np.int64)) & 255
    save('tiff_rgb_pred_deflate.tif', tiff(W, H, 8, 3, 2, [zlib.compress(d.astype(np.uint8).tobytes())], compression=8, predictor=2))
    p16 = rng.integers(0, 65536, (H, W, 3))
    d16 = hdiff(p16) & 0xffff
    save('tiff_rgb16_pred_be.tif', tiff(W, H, 16, 3, 2, [zlib.compress(d16.astype('>u2').tobytes())], be=True, compression=32946, predictor=2))
    save('tiff_rgb16_le.tif', tiff(W, H, 16, 3, 2, [p16.astype('<u2').tobytes()]))
    g4 = rng.integers(0, 16, (H, W))
    packed = b''.join(bytes((int(r[i]) << 4 | (int(r[i + 1]) if i + 1 < W else 0)) for i in range(0, W, 2)) for r in g4)
    save('tiff_grey4_white.tif', tiff(W, H, 4, 1, 0, [packed]))
    cmap = list(rng.integers(0, 65536, 3 * 16))
    save('tiff_pal4.tif', tiff(W, H, 4, 1, 3, [packed], cmap=cmap))


if __name__ == '__main__':
    pngs()
    bmps()
    pnms()
    tiffs()
    with open(os.path.join(HERE, 'manifest.txt'), 'w') as f:
        f.write('\n'.join(out) + '\n')
    print(len(out), 'images,', sum(os.path.getsize(os.path.join(HERE, n.split()[0])) + os.path.getsize(os.path.join(HERE, n.split()[0] + '.rgb')) for n in out), 'bytes')
