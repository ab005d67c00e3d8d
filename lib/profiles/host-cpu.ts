/**
 * Conservative host CPU cost per request for the built-in profiles, by kind of input.
 *
 * A request costs host CPU outside the device call: the HTTP server, JSON parsing and serialising, and turning the
 * payload into tensors (tokenization for text, decoding and resizing for images) and the result back into a response.
 * The Neuron tables measure the device loop only, so none of this is in them. These defaults are UNVERIFIED estimates,
 * deliberately on the high side so a plan never counts on host CPU it does not have; the model server measures the real
 * figure (pass it in your profile as `hostCpuMsPerRequest`).
 */
import type { ActivationKind } from './memory';

/** A default host CPU cost and why. */
export interface HostCpuDefault {
  /** Milliseconds of one vCPU per request. */
  readonly ms: number;
  /** Where the figure comes from. */
  readonly source: string;
}

/** Python HTTP serving with JSON, shared by every kind: the floor under any request. */
const HTTP_JSON =
  'a Python HTTP server (TorchServe/SageMaker toolkit frontend hop, or uvicorn + FastAPI) parsing and writing JSON costs ' +
  'roughly 0.3-1 ms of CPU per small request';

/**
 * Host CPU per request by kind of input. Estimates, UNVERIFIED: no AWS-published per-request host cost exists for the
 * Neuron serving stacks.
 */
export const HOST_CPU_DEFAULTS: Readonly<Record<ActivationKind, HostCpuDefault>> = {
  textSeq128: {
    ms: 1,
    source:
      'UNVERIFIED estimate for text at sequence length 128: the cdk-inferentia model server spends 0.52 ms of CPU per ' +
      'single-input request at batch 1 on HTTP, JSON, queueing and slicing (npm run bench:serving-overhead, 2-core ' +
      'host, 2026-11-23); a Rust-backed Hugging Face fast tokenizer takes well under 0.5 ms for one 128-token ' +
      'sequence (its README: under 20 s per GB of text). About 0.9 ms, rounded up to 1 ms. Measure yours with the ' +
      'model server.',
  },
  image224: {
    ms: 10,
    source:
      `UNVERIFIED estimate for one image classified at 224x224: ${HTTP_JSON}; decoding a typical JPEG photo ` +
      '(ImageNet-sized, about 500x375) with Pillow and resizing, cropping and normalising it to a 224x224 tensor ' +
      'costs a few milliseconds; base64 in JSON adds about a third to the payload. About 6 ms, rounded up to 10 ms.',
  },
  imageLarge: {
    ms: 30,
    source:
      `UNVERIFIED estimate for large images or video clips (608x608 detection, pose estimation, a 16-frame clip): ` +
      `${HTTP_JSON}; decoding and resizing several times the pixels of a 224x224 image, plus larger outputs (boxes, ` +
      'heat maps) to serialise. Three times the 224x224 figure.',
  },
  diffusion: {
    ms: 100,
    source:
      `UNVERIFIED estimate for image generation: ${HTTP_JSON}; tokenizing the prompt is cheap, but encoding the ` +
      'generated image (PNG of up to 1024x1024, a few MB) and base64-encoding it costs tens of milliseconds. 100 ms ' +
      'is small next to the seconds of device time per image.',
  },
};
