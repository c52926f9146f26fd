#!/usr/bin/python3
"""Regenerates the JPEG 2000 test vectors (run by hand, not by CI).

Needs Debian's /usr/bin/python3 (Pillow 9.4 with OpenJPEG 2.5) and opj_compress. Each vector
is an encoded stream <name> (.jp2 or .j2k) and <name>.ppm, the RGB that Pillow decodes from it
(Image.open(...).convert("RGB"), what the ONNX reference's ImageDecoder returns in RGB mode);
vectors.inc lists them for tests/test_image_jp2.c with the tolerance (0: bit-exact).
"""
import os
import subprocess
import sys
import tempfile

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def source_image(w, h, mode="RGB", seed=1):
    """A deterministic picture with gradients, edges and noise (hard for the coder)."""
    import random

    rnd = random.Random(seed)
    im = Image.new(mode, (w, h))
    px = im.load()
    for y in range(h):
        for x in range(w):
            r = (x * 255 // max(w - 1, 1) + rnd.randrange(0, 40)) & 255
            g = (y * 255 // max(h - 1, 1) ^ (x * 7)) & 255
            b = ((x + y) * 16 + rnd.randrange(0, 256) * ((x // 3 + y // 5) % 2)) & 255
            if mode == "RGB":
                px[x, y] = (r, g, b)
            elif mode == "L":
                px[x, y] = (r + g) // 2
            elif mode == "I;16":
                px[x, y] = (r << 8 | b) & 0xFFFF
    return im


def save_ppm(im, path):
    rgb = im.convert("RGB")
    w, h = rgb.size
    with open(path, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (w, h))
        f.write(rgb.tobytes())


VECTORS = []


def samples(w, h, nc, bits, seed=1):
    """Deterministic samples in [0, 2^bits): a gradient per component plus noise."""
    import random

    rnd = random.Random(seed)
    top = (1 << bits) - 1
    return [[min(top, max(0, (x * top // max(w - 1, 1) * (c + 1) // nc + y * 3 * (c + 1) + rnd.randrange(0, max(top // 8, 2))) % (top + 1)))
             for c in range(nc)] for y in range(h) for x in range(w)]


def pnm_bytes(w, h, nc, bits, seed=1):
    """A P5/P6 (maxval 2^bits - 1, 16-bit big-endian above 8 bits) or P7 PAM file."""
    top = (1 << bits) - 1
    px = samples(w, h, nc, bits, seed)
    body = bytearray()
    for p in px:
        for v in p:
            body += bytes([v >> 8, v & 255]) if top > 255 else bytes([v])
    if nc in (1, 3):
        return b"P%d\n%d %d\n%d\n" % (5 if nc == 1 else 6, w, h, top) + bytes(body)
    tupl = b"GRAYSCALE_ALPHA" if nc == 2 else b"RGB_ALPHA"
    return b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n" % (w, h, nc, top, tupl) + bytes(body)


def raw_bytes(w, h, nc, bits, signed, seed=1):
    """Planar raw samples for opj_compress -F (big-endian above 8 bits)."""
    px = samples(w, h, nc, bits, seed)
    half = 1 << (bits - 1)
    body = bytearray()
    for c in range(nc):
        for p in px:
            v = p[c] - half if signed else p[c]
            v &= (1 << (8 if bits <= 8 else 16)) - 1
            body += bytes([v >> 8, v & 255]) if bits > 8 else bytes([v])
    return bytes(body)


def vector(name, w, h, args, tol=0, mode="RGB", sweep=0, src_fmt="ppm", seed=1, src_bytes=None, patch=None):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src." + src_fmt)
        if src_bytes is not None:
            with open(src, "wb") as f:
                f.write(src_bytes)
        else:
            source_image(w, h, mode, seed).save(src)
        out = os.path.join(HERE, name)
        subprocess.run(["opj_compress", "-i", src, "-o", out] + args, check=True, stdout=subprocess.DEVNULL)
        if patch:
            with open(out, "rb") as f:
                data = f.read()
            assert data.count(patch[0]) == 1
            with open(out, "wb") as f:
                f.write(data.replace(patch[0], patch[1]))
    dec = Image.open(out)
    dec.load()
    save_ppm(dec, out + ".ppm")
    VECTORS.append((name, tol, sweep))


def main():
    # lossless 5/3, odd sizes
    vector("l53_1x1.jp2", 1, 1, ["-n", "1"])
    vector("l53_7x13.jp2", 7, 13, ["-n", "3"], sweep=1)
    vector("l53_33x17.jp2", 33, 17, ["-n", "3"])
    vector("l53_100x3.jp2", 100, 3, ["-n", "2"])
    # several tiles, each progression order
    vector("tiles_lrcp.jp2", 45, 37, ["-t", "16,16", "-n", "3", "-p", "LRCP"])
    vector("tiles_rlcp.jp2", 45, 37, ["-t", "16,12", "-n", "3", "-p", "RLCP"])
    vector("tiles_rpcl.jp2", 45, 37, ["-t", "20,16", "-n", "3", "-p", "RPCL", "-c", "[8,8],[4,4]"])
    vector("tiles_pcrl.jp2", 45, 37, ["-t", "16,20", "-n", "3", "-p", "PCRL", "-c", "[8,8],[8,4],[4,4]"])
    vector("tiles_cprl.jp2", 45, 37, ["-t", "24,24", "-n", "2", "-p", "CPRL", "-c", "[16,16],[8,8]"])
    # tile and image offsets
    vector("offset.j2k", 30, 21, ["-d", "3,5", "-T", "1,2", "-t", "9,7", "-n", "2"])
    # small code blocks, explicit precincts, several layers
    vector("cb4x4.jp2", 40, 24, ["-b", "4,4", "-n", "3"])
    vector("cb16_prec.jp2", 64, 48, ["-b", "16,16", "-c", "[32,32],[16,16],[8,8]", "-n", "3"])
    vector("layers.jp2", 48, 40, ["-r", "40,20,10,1", "-n", "3"], sweep=0)
    # code-block style flags: bypass 1, reset 2, termall 4, vsc 8, pterm 16, segsym 32
    for m in (1, 2, 4, 8, 16, 32, 63):
        vector("mode%d.jp2" % m, 37, 29, ["-M", str(m), "-n", "3", "-b", "16,16"])
    vector("mode_layers.jp2", 37, 29, ["-M", "5", "-n", "3", "-b", "8,8", "-r", "30,8,2"])
    # grey, raw codestream, SOP/EPH, MCT off
    vector("grey.jp2", 29, 31, ["-n", "3"], mode="L", src_fmt="pgm")
    vector("grey.j2k", 29, 31, ["-n", "3"], mode="L", src_fmt="pgm")
    vector("sop_eph.j2k", 33, 20, ["-SOP", "-EPH", "-n", "3"], sweep=1)
    vector("nomct.jp2", 33, 20, ["-mct", "0", "-n", "3"])
    # lossy 9/7 with the ICT
    vector("i97.jp2", 48, 40, ["-I", "-r", "10", "-n", "4"], tol=1)
    vector("i97_tiles.jp2", 45, 37, ["-I", "-q", "35", "-t", "16,16", "-n", "3"], tol=1)
    vector("i97_grey.j2k", 31, 29, ["-I", "-r", "5", "-n", "3"], tol=1, mode="L", src_fmt="pgm")
    vector("i97_lossless_rate.jp2", 31, 29, ["-I", "-n", "3"], tol=1)
    # lossy 5/3: layers cut before the last bit-planes (mid-point reconstruction)
    vector("l53_lossy.jp2", 48, 40, ["-r", "30,12", "-n", "3"])
    # region of interest: component 0 upshifted (RGN maximum shift)
    vector("roi.jp2", 40, 30, ["-ROI", "c=0,U=5", "-n", "3"])
    vector("roi_lossy.jp2", 40, 30, ["-ROI", "c=1,U=3", "-n", "3", "-r", "8"])
    # precision other than 8 bits: Pillow's shift (and I;16 for one component above 9 bits in JP2)
    vector("grey16.jp2", 23, 19, ["-n", "3"], src_fmt="pgm", src_bytes=pnm_bytes(23, 19, 1, 16))
    vector("grey16.j2k", 23, 19, ["-n", "3"], src_fmt="pgm", src_bytes=pnm_bytes(23, 19, 1, 16))
    vector("grey12.jp2", 23, 19, ["-n", "3"], src_fmt="pgm", src_bytes=pnm_bytes(23, 19, 1, 12))
    vector("grey9.jp2", 23, 19, ["-n", "3"], src_fmt="pgm", src_bytes=pnm_bytes(23, 19, 1, 9))
    vector("rgb16.jp2", 21, 17, ["-n", "3"], src_bytes=pnm_bytes(21, 17, 3, 16))
    vector("rgb12_i97.jp2", 21, 17, ["-n", "3", "-I", "-r", "6"], src_bytes=pnm_bytes(21, 17, 3, 12), tol=1)
    vector("rgb4.jp2", 21, 17, ["-n", "3"], src_bytes=pnm_bytes(21, 17, 3, 4))
    vector("grey1.j2k", 21, 17, ["-n", "2"], src_fmt="pgm", src_bytes=pnm_bytes(21, 17, 1, 1))
    # alpha: grey + alpha, RGBA (dropped)
    vector("greya.jp2", 19, 15, ["-n", "2"], src_fmt="pam", src_bytes=pnm_bytes(19, 15, 2, 8))
    vector("rgba.jp2", 19, 15, ["-n", "2"], src_fmt="pam", src_bytes=pnm_bytes(19, 15, 4, 8))
    vector("rgba.j2k", 19, 15, ["-n", "2"], src_fmt="pam", src_bytes=pnm_bytes(19, 15, 4, 8))
    # signed samples (raw input)
    vector("signed8.j2k", 20, 12, ["-n", "2", "-F", "20,12,3,8,s"], src_fmt="raw", src_bytes=raw_bytes(20, 12, 3, 8, True))
    vector("signed12.j2k", 20, 12, ["-n", "2", "-F", "20,12,1,12,s"], src_fmt="raw", src_bytes=raw_bytes(20, 12, 1, 12, True))
    # tile-parts (by resolution, by layer), PLT and TLM segments, long thin code blocks
    vector("tp_res.jp2", 40, 32, ["-TP", "R", "-t", "16,16", "-n", "3"])
    vector("tp_layer.jp2", 40, 32, ["-TP", "L", "-r", "20,5,1", "-n", "3", "-p", "LRCP"])
    vector("plt.jp2", 40, 32, ["-PLT", "-t", "16,16", "-n", "3"])
    vector("tlm.j2k", 40, 32, ["-TLM", "-t", "16,16", "-n", "3"])
    vector("cb128x8.jp2", 150, 20, ["-b", "128,8", "-n", "3"])
    vector("cb8x128.jp2", 20, 150, ["-b", "8,128", "-n", "3", "-M", "9"])
    # progression order changes (POC in the main header / a tile-part header)
    vector("poc.j2k", 40, 32, ["-n", "4", "-r", "20,1", "-POC", "T1=0,0,1,3,3,CPRL/T1=0,0,2,4,3,LRCP"], sweep=1)
    vector("poc_tiles.jp2", 40, 32, ["-n", "3", "-t", "20,16", "-r", "20,5,1", "-POC", "T1=0,0,2,2,3,RPCL/T1=0,0,3,3,3,PCRL"])
    # colr EnumCS 18 (sYCC, patched in) and 17 (grey on 3 components): Pillow 9.4 through
    # OpenJPEG 2.5's tile interface ignores colr and shows the bare components
    vector("colr_grey.jp2", 27, 21, ["-n", "3", "-mct", "0"], patch=(b"colr\x01\x00\x00\x00\x00\x00\x10", b"colr\x01\x00\x00\x00\x00\x00\x11"))
    vector("colr_sycc.jp2", 27, 21, ["-n", "3", "-mct", "0"], patch=(b"colr\x01\x00\x00\x00\x00\x00\x10", b"colr\x01\x00\x00\x00\x00\x00\x12"))
    # ITU-T T.803 conformance streams (uclouvain/openjpeg-data input/conformance; see
    # ITU_COPYRIGHT): packed headers in PPT (p1_06) and in PPM segments out of Z order (g1),
    # POC entries in a later tile-part header (e1), tiny odd sizes (p0_11, p0_12)
    conf = os.environ.get("OPENJPEG_DATA_CONFORMANCE")
    for name in ("itu_p1_06.j2k", "itu_g1_colr.j2c", "itu_e1_colr.j2c", "itu_p0_11.j2k", "itu_p0_12.j2k"):
        out = os.path.join(HERE, name)
        if conf:
            with open(os.path.join(conf, name[4:]), "rb") as src, open(out, "wb") as dst:
                dst.write(src.read())
        dec = Image.open(out)
        dec.load()
        save_ppm(dec, out + ".ppm")
        VECTORS.append((name, 0, 1 if name == "itu_p1_06.j2k" else 0))
    with open(os.path.join(HERE, "vectors.inc"), "w") as f:
        f.write("/* Generated by make.py: name, tolerance, robustness sweep. */\n")
        for name, tol, sweep in VECTORS:
            f.write('{"%s", %d, %d},\n' % (name, tol, sweep))


if __name__ == "__main__":
    sys.exit(main())
