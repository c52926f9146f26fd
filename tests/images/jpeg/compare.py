#!/usr/bin/python3
"""Differential check of src/kernels/image_jpeg.c against Pillow (run by hand, not by CI):
random images, sizes and encoder settings (Pillow's and cjpeg's: sampling factors, quality,
progressive, optimized tables, restart intervals, grey, RGB, CMYK), each decoded by both;
prints every mismatch or disagreement about refusing, and keeps failing streams.

    /usr/bin/python3 tests/images/jpeg/compare.py [seed] [count]

Needs Debian's Pillow (python3-pil), cjpeg (libjpeg-turbo-progs) and a C compiler; builds
the decoder with ASan/UBSan into a temporary folder."""
import io
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
HARNESS_C = r"""#include "kernels/image_codec.h"
#include <stdio.h>
#include <stdlib.h>
/* usage: harness in.jpg out.rgb [max_h max_w]: prints OK w h, or ERR message */
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  unsigned char *src = malloc(n ? n : 1); fread(src, 1, n, f); fclose(f);
  uint32_t mh = 4096, mw = 4096;
  if (argc > 3) { mh = atoi(argv[3]); mw = atoi(argv[4]); }
  berth_image_dst_t d = {0};
  d.max_height = mh; d.max_width = mw;
  d.rgb = malloc((size_t)mh * mw * 3);
  d.scratch_bytes = berth_image_jpeg_scratch_bytes(mh, mw);
  d.scratch = aligned_alloc(16, (d.scratch_bytes + 15) & ~15ull);
  const char *why = berth_image_decode_jpeg(src, n, &d);
  if (why) { printf("ERR %s\n", why); return 0; }
  FILE *o = fopen(argv[2], "wb"); fwrite(d.rgb, 1, (size_t)d.width * d.height * 3, o); fclose(o);
  printf("OK %u %u\n", d.width, d.height);
  return 0;
}
"""
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
N = int(sys.argv[2]) if len(sys.argv) > 2 else 200
d = tempfile.mkdtemp()
HARNESS = os.path.join(d, "harness")
with open(os.path.join(d, "harness.c"), "w") as f:
    f.write(HARNESS_C)
subprocess.run(["cc", "-O1", "-g", "-fsanitize=address,undefined", "-I", os.path.join(ROOT, "src"), os.path.join(d, "harness.c"),
                os.path.join(ROOT, "src/kernels/image_jpeg.c"), "-o", HARNESS], check=True)
os.environ["ASAN_OPTIONS"] = "detect_leaks=0"


def content(w, h):
    k = rng.randrange(4)
    nr = np.random.default_rng(rng.randrange(1 << 30))
    if k == 0: a = nr.integers(0, 256, (h, w, 3))
    elif k == 1:
        y, x = np.mgrid[0:h, 0:w]; a = np.stack([x * 7 % 256, y * 11 % 256, (x + y) * 5 % 256], 2)
    elif k == 2: a = np.where(((np.mgrid[0:h, 0:w][0] + np.mgrid[0:h, 0:w][1]) % 2)[..., None] == 0, nr.integers(0, 256, 3), nr.integers(0, 256, 3)) * np.ones((h, w, 3))
    else: a = np.clip(nr.normal(128, 80, (h, w, 3)), 0, 255)
    return Image.fromarray(a.astype(np.uint8), "RGB")
def sample():
    while True:
        fs = [(rng.randint(1, 4), rng.randint(1, 4)) for _ in range(3)]
        if sum(h * v for h, v in fs) <= 10: return ",".join(f"{h}x{v}" for h, v in fs)
fails = 0
for t in range(N):
    w, h = rng.randint(1, 70), rng.randint(1, 70)
    im = content(w, h)
    if rng.random() < 0.5:
        kw = dict(quality=rng.randint(1, 100), subsampling=rng.choice([0, 1, 2]), progressive=rng.random() < 0.4, optimize=rng.random() < 0.3)
        src = im.convert("L") if rng.random() < 0.2 else im
        if rng.random() < 0.15: src = Image.merge("CMYK", im.split() + (im.convert("L"),))
        b = io.BytesIO(); src.save(b, "JPEG", **kw); data = b.getvalue(); desc = f"pil {kw} {src.mode}"
    else:
        args = ["-quality", str(rng.randint(1, 100))]
        if rng.random() < 0.2: args.append("-grayscale")
        elif rng.random() < 0.15: args.append("-rgb")
        else: args += ["-sample", sample()]
        if rng.random() < 0.4: args.append("-progressive")
        if rng.random() < 0.3: args.append("-optimize")
        if rng.random() < 0.4: args += ["-restart", str(rng.randint(1, 3)) + rng.choice(["", "B"])]
        p = os.path.join(d, "in.ppm"); im.save(p)
        r = subprocess.run(["cjpeg", *args, p], capture_output=True)
        if r.returncode: continue
        data = r.stdout; desc = "cjpeg " + " ".join(args)
    jp = os.path.join(d, "t.jpg"); open(jp, "wb").write(data)
    try:
        ref = np.array(Image.open(io.BytesIO(data)).convert("RGB"))
    except Exception as e:
        ref = None
    out = subprocess.run([HARNESS, jp, os.path.join(d, "t.rgb")], capture_output=True, text=True)
    if out.stderr: print("STDERR", desc, out.stderr[:2000]); fails += 1; continue
    if ref is None:
        if not out.stdout.startswith("ERR"): print("Pillow refuses, we accept:", desc, w, h); fails += 1
        continue
    if not out.stdout.startswith("OK"): print("we refuse:", desc, w, h, out.stdout.strip()); fails += 1; continue
    got = np.frombuffer(open(os.path.join(d, "t.rgb"), "rb").read(), np.uint8).reshape(ref.shape)
    if not (got == ref).all():
        fails += 1; bad = np.argwhere((got != ref).any(2))
        print("MISMATCH", desc, w, h, len(bad), "first", bad[0], got[tuple(bad[0])], ref[tuple(bad[0])])
        open(os.path.join(d, f"fail{fails}.jpg"), "wb").write(data)
print("done", N, "fails", fails)
