#!/usr/bin/python3
"""Regenerates the JPEG test vectors of tests/test_image_jpeg.c (run by hand, not by CI).

Needs Debian's Pillow (python3-pil, libjpeg-turbo 2.1) and cjpeg (libjpeg-turbo-progs):
    /usr/bin/python3 tests/images/jpeg/make.py
Each case NAME is NAME.jpg (the stream) and NAME.rgb (what Pillow decodes it to, converted
to RGB: height * width * 3 bytes); the test knows each case's size."""
import io
import os
import subprocess
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def picture(w, h, seed=1):
    """Gradients, a hard edge and some noise: exercises clamping and every filter tap."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    r = (x * 255 // max(w - 1, 1))
    g = (y * 255 // max(h - 1, 1))
    b = np.where((x // 3 + y // 2) % 2 == 0, 230, 20)
    a = np.stack([r, g, b], axis=2) + rng.integers(-40, 40, (h, w, 3))
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "RGB")


def pil(im, **kw):
    b = io.BytesIO()
    im.save(b, "JPEG", **kw)
    return b.getvalue()


def cjpeg(im, *args):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.ppm")
        im.save(src)
        return subprocess.run(["cjpeg", *args, src], check=True, capture_output=True).stdout


def scans(im, script, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(script)
    try:
        return cjpeg(im, "-scans", f.name, *args)
    finally:
        os.unlink(f.name)


def write(name, data):
    with open(os.path.join(HERE, name + ".jpg"), "wb") as f:
        f.write(data)
    out = np.array(Image.open(io.BytesIO(data)).convert("RGB"))
    with open(os.path.join(HERE, name + ".rgb"), "wb") as f:
        f.write(out.tobytes())
    print(f"{name}: {out.shape[1]}x{out.shape[0]}, {len(data)} bytes")


def main():
    p = picture(17, 19)
    write("size_1x1", pil(picture(1, 1)))
    write("size_7x13", pil(picture(7, 13)))
    write("size_33x17", pil(picture(33, 17)))
    write("size_100x3", pil(picture(100, 3)))
    write("s444", pil(p, subsampling=0))
    write("s422", pil(p, subsampling=1))
    write("s420", pil(p, subsampling=2))
    write("s411", cjpeg(p, "-sample", "4x1,1x1,1x1"))
    write("s440", cjpeg(p, "-sample", "1x2,1x1,1x1"))
    write("s420_narrow", pil(picture(3, 9), subsampling=2))  # chroma 2 wide: box filter
    write("s_chroma_big", cjpeg(p, "-sample", "1x1,2x2,1x1"))  # luma upsampled h2v2
    write("s_3x1", cjpeg(p, "-sample", "3x1,1x1,1x1"))
    write("s_4x2", cjpeg(picture(33, 17), "-sample", "4x2,1x1,1x1"))
    write("s_1x4", cjpeg(picture(9, 33), "-sample", "1x4,1x2,1x1"))
    write("grey", pil(p.convert("L")))
    write("rgb_adobe", cjpeg(p, "-rgb"))
    write("q5", pil(p, quality=5))
    write("q100", pil(p, quality=100, subsampling=0))
    write("optimized", pil(p, optimize=True))
    write("progressive", pil(picture(24, 18), progressive=True))
    write("progressive_grey", pil(picture(24, 18).convert("L"), progressive=True))
    write("progressive_restart", cjpeg(picture(24, 18), "-progressive", "-restart", "1B"))
    write("restart", cjpeg(p, "-restart", "1B"))
    write("restart_rows", cjpeg(picture(24, 18), "-restart", "1", "-sample", "2x1,1x1,1x1"))
    write("multiscan", scans(p, "0;\n1;\n2;\n"))
    # CMYK as Pillow writes it (Adobe transform 0, inverted), and the same stream declared
    # YCCK (transform 2): libjpeg converts it, Pillow inverts, then cmyk2rgb
    cmyk = Image.merge("CMYK", picture(21, 13).split() + (picture(21, 13, seed=2).convert("L"),))
    data = pil(cmyk, quality=90)
    write("cmyk", data)
    at = data.index(b"Adobe")
    assert data[at + 11] == 0
    write("ycck", data[: at + 11] + b"\x02" + data[at + 12 :])
    # the luma DC quantization value raised to 247: dequantized DC values overflow 16 bits,
    # where libjpeg-turbo's SIMD IDCT (what Pillow runs) wraps and the C one does not
    data = bytearray(pil(p, subsampling=2))
    at = data.index(b"\xff\xdb")
    assert data[at + 4] == 0
    data[at + 5] = 247
    write("dqt_dc247", bytes(data))
    # a file cut inside its scan data and closed with EOI: libjpeg pads with zero bits
    full = pil(picture(24, 18), quality=90)
    write("cut_eoi", full[: len(full) * 2 // 3] + b"\xff\xd9")
    full = pil(picture(24, 18), quality=90, progressive=True)
    last_scan = full.rindex(b"\xff\xda")
    write("cut_eoi_progressive", full[: (last_scan + len(full)) // 2] + b"\xff\xd9")


if __name__ == "__main__":
    main()
