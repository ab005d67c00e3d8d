"""Host CPU one image request costs before and after the device call: the measurement behind the planner's image defaults.

A vision handler (ViT, ResNet) receives a JPEG, base64 in JSON, and must turn it into a 224x224 float tensor, then turn
1000 logits back into JSON. This script times exactly that work, in one process on one thread, with the libraries such a
handler uses: Pillow to decode and resize, numpy to normalise (what Hugging Face's ViTImageProcessor does: resize to
224x224, rescale, normalise), or torchvision's classic Resize(256) + CenterCrop(224) + ToTensor + Normalize.

Images: a real photo shipped with a dev dependency (autocannon's test/j5.jpeg, 1169x584), and the same photo cropped
to 500x375 and re-encoded at quality 90, the size of a typical ImageNet photo. The HTTP server, JSON framing and
queueing the model server adds per request are measured by `npm run bench:serving-overhead`; add them.

CPU time (time.process_time), not wall time; other load on a shared machine still inflates it (caches, shared cores),
so each row runs ROUNDS rounds and prints the least disturbed (min) and the median. Prints figures only.
Needs Debian's python3-pil (python3-torchvision for the torchvision rows, skipped without it).
Usage: npm run bench:host-work
"""
import base64
import io
import json
import os
import statistics
import sys
import time

import numpy as np

try:
    from PIL import Image
except ImportError:
    sys.exit("bench:host-work needs Pillow: apt-get install python3-pil (and python3-torchvision for the torchvision rows)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHOTO = os.path.join(ROOT, "node_modules", "autocannon", "test", "j5.jpeg")
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "100"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
MEAN = np.array([0.5, 0.5, 0.5], dtype=np.float32)  # ViTImageProcessor defaults for google/vit-base-patch16-224
STD = np.array([0.5, 0.5, 0.5], dtype=np.float32)


def typical_jpeg(photo):
    """The photo cropped to ImageNet's typical 500x375 and re-encoded at quality 90: photo content, typical size."""
    image = Image.open(io.BytesIO(photo)).convert("RGB")
    left = (image.width - 500) // 2
    top = (image.height - 375) // 2
    out = io.BytesIO()
    image.crop((left, top, left + 500, top + 375)).save(out, format="JPEG", quality=90)
    return out.getvalue()


def vit_processor(image):
    """ViTImageProcessor's path: resize to 224x224 (bilinear), rescale to [0, 1], normalise, channels first."""
    pixels = np.asarray(image.resize((224, 224), Image.BILINEAR), dtype=np.float32) / 255.0
    return ((pixels - MEAN) / STD).transpose(2, 0, 1)


def torchvision_pipeline():
    try:
        import torch
        from torchvision import transforms
    except ImportError:
        return None

    torch.set_num_threads(1)
    pipeline = transforms.Compose([
        transforms.Resize(256),
        transforms.CenterCrop(224),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    return lambda image: pipeline(image).numpy()


def cpu_ms_per_request(body, preprocess):
    """Parse the JSON, decode base64 and the JPEG, preprocess, and write 1000 logits as JSON: one request's host work."""
    logits = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    for _ in range(10):  # warm-up: caches, lazy imports
        preprocess(Image.open(io.BytesIO(base64.b64decode(json.loads(body)["inputs"]))).convert("RGB"))
    rounds = []
    for _ in range(ROUNDS):
        started = time.process_time()
        for _ in range(REQUESTS):
            image = Image.open(io.BytesIO(base64.b64decode(json.loads(body)["inputs"]))).convert("RGB")
            tensor = preprocess(image)
            assert tensor.shape == (3, 224, 224)
            json.dumps({"outputs": [logits.tolist()]})
        rounds.append((time.process_time() - started) * 1000 / REQUESTS)
    return min(rounds), statistics.median(rounds)


def main():
    if not os.path.exists(PHOTO):
        sys.exit(f"{PHOTO} is missing: run npm install (autocannon, a devDependency, ships the photo)")
    with open(PHOTO, "rb") as f:
        photo = f.read()
    images = {"typical 500x375 q90": typical_jpeg(photo), f"j5.jpeg {Image.open(PHOTO).size[0]}x{Image.open(PHOTO).size[1]}": photo}
    paths = {"Pillow + numpy (ViTImageProcessor)": vit_processor}
    torchvision = torchvision_pipeline()
    if torchvision is not None:
        paths["torchvision Resize+CenterCrop"] = torchvision
    print(f"host CPU per image request, {ROUNDS} rounds of {REQUESTS} requests per row, one thread, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}, Pillow {Image.__version__}, numpy {np.__version__}")
    print(f"{'image':<22}  {'KB':>5}  {'preprocessing':<36}  {'CPU ms/request min':>18}  {'median':>6}")
    for name, jpeg in images.items():
        body = json.dumps({"inputs": base64.b64encode(jpeg).decode()})
        for label, preprocess in paths.items():
            least, median = cpu_ms_per_request(body, preprocess)
            print(f"{name:<22}  {len(jpeg) // 1024:>5}  {label:<36}  {least:>18.2f}  {median:>6.2f}")


if __name__ == "__main__":
    main()
