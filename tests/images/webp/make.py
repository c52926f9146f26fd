#!/usr/bin/python3
"""Regenerates the WebP test vectors of tests/test_image_webp.c (run by hand, not by CI).

Each case is a small synthetic image encoded with cwebp (libwebp 1.2.4, Debian) or Pillow,
stored as NAME.webp, with the pixels the ONNX reference gets for it (Pillow's decode,
converted to RGB: libwebp with its defaults) as NAME.rgb (height * width * 3 bytes).
Needs Debian's /usr/bin/python3 (Pillow 9.4 with WebP, numpy) and the cwebp tool.

    cd tests/images/webp && /usr/bin/python3 make.py
"""
import io
import os
import subprocess
import tempfile

import numpy as np
from PIL import Image


def photo(w, h, seed):
    """Smooth gradients, a few edges and some noise: exercises every prediction mode."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    r = 128 + 100 * np.sin(x / 7.0) * np.cos(y / 11.0)
    g = 255 * x / max(w - 1, 1)
    b = 255 * y / max(h - 1, 1)
    img = np.stack([r, g, b], axis=-1)
    img[(x // 13 + y // 9) % 2 == 0] += 40  # hard edges
    img += rng.normal(0, 12, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def flat(w, h, seed):
    img = np.zeros((h, w, 3), np.uint8)
    img[...] = (200, 120, 40)
    img[h // 3:, : w // 2] = (30, 60, 220)
    return img


def flat_spot(w, h, seed):
    """One colour with a square: most macroblocks have no coefficients (the skip flag)."""
    img = np.zeros((h, w, 3), np.uint8)
    img[...] = (200, 120, 40)
    img[40:60, 30:50] = (0, 0, 255)
    return img


# cwebp has no option for the number of token partitions: this shim, preloaded, sets
# WebPConfig.partitions (the 19th 4-byte field in libwebp 1.2.4) from $WEBP_PARTITIONS
# when cwebp calls WebPEncode (libwebp honours it with methods 0 to 2).
SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
int WebPEncode(int *config, void *picture) {
  const char *p = getenv("WEBP_PARTITIONS");
  if (p) config[18] = atoi(p);
  int (*real)(int *, void *) = (int (*)(int *, void *))dlsym(RTLD_NEXT, "WebPEncode");
  return real(config, picture);
}
"""


def cwebp(name, pixels, args, mode="RGB", partitions=None):
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "in.png")
        Image.fromarray(pixels, mode).save(png)
        env = dict(os.environ)
        if partitions is not None:
            with open(os.path.join(tmp, "shim.c"), "w") as f:
                f.write(SHIM)
            so = os.path.join(tmp, "shim.so")
            subprocess.run(["gcc", "-shared", "-fPIC", "-o", so, os.path.join(tmp, "shim.c"), "-ldl"], check=True)
            env["LD_PRELOAD"] = so
            env["WEBP_PARTITIONS"] = str(partitions)
        subprocess.run(["cwebp", "-quiet"] + args + [png, "-o", name + ".webp"], check=True, env=env)


def pillow(name, pixels, **kw):
    Image.fromarray(pixels).save(name + ".webp", "WEBP", **kw)


def expect(name):
    with open(name + ".webp", "rb") as f:
        img = Image.open(io.BytesIO(f.read()))
        rgb = np.array(img.convert("RGB"))
    with open(name + ".rgb", "wb") as f:
        f.write(rgb.tobytes())
    print(name, rgb.shape[1], rgb.shape[0], os.path.getsize(name + ".webp"))


def palette(w, h, seed, colors):
    """An image of a few colours: the colour-indexing transform, with pixel packing when
    there are at most 16."""
    rng = np.random.default_rng(seed)
    pal = rng.integers(0, 256, (colors, 3), dtype=np.uint8)
    y, x = np.mgrid[0:h, 0:w]
    idx = ((x // 3 + y // 2 + (x * y) // 7) % colors).astype(np.int64)
    return pal[idx]


def rgba(w, h, seed):
    p = photo(w, h, seed)
    yy, xx = np.mgrid[0:h, 0:w]
    a = np.clip(255 * xx / max(w - 1, 1), 0, 255).astype(np.uint8)
    a[yy < h // 4] = 0
    return np.dstack([p, a])


CASES = [
    ("tiny_1x1", lambda: cwebp("tiny_1x1", photo(1, 1, 1), ["-q", "50"])),
    ("odd_7x13", lambda: cwebp("odd_7x13", photo(7, 13, 2), ["-q", "50"])),
    ("odd_33x17_q5", lambda: cwebp("odd_33x17_q5", photo(33, 17, 3), ["-q", "5"])),
    ("wide_100x3_q100", lambda: cwebp("wide_100x3_q100", photo(100, 3, 4), ["-q", "100"])),
    ("photo_q50", lambda: cwebp("photo_q50", photo(64, 48, 5), ["-q", "50"])),
    ("photo_q100", lambda: cwebp("photo_q100", photo(48, 40, 6), ["-q", "100", "-m", "6"])),
    ("flat_q75", lambda: cwebp("flat_q75", flat(40, 40, 7), ["-q", "75"])),
    ("seg1", lambda: cwebp("seg1", photo(48, 32, 8), ["-q", "60", "-segments", "1"])),
    ("seg4_sns100", lambda: cwebp("seg4_sns100", photo(64, 40, 9), ["-q", "40", "-segments", "4", "-sns", "100"])),
    ("sns0", lambda: cwebp("sns0", photo(40, 40, 10), ["-q", "40", "-sns", "0"])),
    ("nofilter", lambda: cwebp("nofilter", photo(40, 40, 11), ["-q", "30", "-f", "0"])),
    ("filter100_sharp7", lambda: cwebp("filter100_sharp7", photo(40, 40, 12), ["-q", "20", "-f", "100", "-sharpness", "7"])),
    ("filter60_sharp3", lambda: cwebp("filter60_sharp3", photo(40, 40, 13), ["-q", "20", "-f", "60", "-sharpness", "3"])),
    ("simple_filter", lambda: cwebp("simple_filter", photo(40, 40, 14), ["-q", "20", "-f", "80", "-nostrong"])),
    ("simple_sharp5", lambda: cwebp("simple_sharp5", photo(33, 33, 15), ["-q", "10", "-f", "50", "-sharpness", "5", "-nostrong"])),
    ("autofilter", lambda: cwebp("autofilter", photo(48, 48, 16), ["-q", "35", "-af", "-strong"])),
    ("fast_m0", lambda: cwebp("fast_m0", photo(40, 24, 17), ["-q", "70", "-m", "0"])),
    ("vp8x_alpha", lambda: cwebp("vp8x_alpha", rgba(37, 29, 18), ["-q", "60", "-alpha_q", "50"], "RGBA")),
    ("vp8x_icc_exif", lambda: pillow("vp8x_icc_exif", photo(30, 20, 19), quality=70, icc_profile=b"\0" * 128,
                                     exif=b"Exif\0\0MM\0*\0\0\0\x08\0\0")),
    ("partitions8", lambda: cwebp("partitions8", photo(40, 150, 21), ["-q", "50", "-m", "2"], partitions=3)),
    ("partitions2", lambda: cwebp("partitions2", photo(50, 40, 22), ["-q", "50", "-m", "1"], partitions=1)),
    ("flat_skip", lambda: cwebp("flat_skip", flat_spot(160, 96, 23), ["-q", "50", "-m", "2"])),
    ("ll_photo", lambda: cwebp("ll_photo", photo(64, 48, 40), ["-lossless"])),
    ("ll_odd_7x13", lambda: cwebp("ll_odd_7x13", photo(7, 13, 41), ["-lossless"])),
    ("ll_z0", lambda: cwebp("ll_z0", photo(33, 17, 42), ["-z", "0"])),
    ("ll_z9", lambda: cwebp("ll_z9", photo(64, 50, 43), ["-z", "9"])),
    ("ll_big_m6", lambda: cwebp("ll_big_m6", photo(100, 80, 44), ["-lossless", "-q", "100", "-m", "6"])),
    ("ll_near", lambda: cwebp("ll_near", photo(50, 30, 45), ["-lossless", "-near_lossless", "40"])),
    ("ll_pal2", lambda: cwebp("ll_pal2", palette(37, 11, 46, 2), ["-lossless"])),
    ("ll_pal4", lambda: cwebp("ll_pal4", palette(29, 13, 47, 4), ["-lossless"])),
    ("ll_pal16", lambda: cwebp("ll_pal16", palette(45, 20, 48, 16), ["-lossless"])),
    ("ll_pal200", lambda: cwebp("ll_pal200", palette(64, 40, 49, 200), ["-lossless"])),
    ("ll_alpha", lambda: cwebp("ll_alpha", rgba(41, 23, 50), ["-lossless", "-exact"], "RGBA")),
    ("ll_pillow", lambda: pillow("ll_pillow", photo(30, 30, 51), lossless=True, quality=80)),
    ("ll_flat_1x1", lambda: cwebp("ll_flat_1x1", flat(1, 1, 52), ["-lossless"])),
    ("photo_big_q90", lambda: cwebp("photo_big_q90", photo(130, 90, 20), ["-q", "90"])),
]


def refusals():
    """Streams that must be refused: animated."""
    frames = [Image.fromarray(photo(16, 16, s)) for s in (31, 32)]
    frames[0].save("animated.webp", "WEBP", save_all=True, append_images=frames[1:], duration=100, quality=50)


if __name__ == "__main__":
    for name, make in CASES:
        make()
        expect(name)
    refusals()
