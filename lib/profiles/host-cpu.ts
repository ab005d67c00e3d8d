/**
 * Host CPU cost per request for the built-in profiles, by kind of input: the work a handler does in the model process
 * outside the device call (parsing the request's JSON, tokenizing text or decoding and resizing an image, writing the
 * answer). The HTTP front end of the model server is modelled apart (`FRONT_END_MS_PER_REQUEST` in
 * lib/planner/serving.ts), so it is not in these figures. The Neuron tables measure the device loop only.
 *
 * Each default says where it comes from in its first clause (the planner quotes it in rejections and `plan` prints
 * it); measure your own handler with `npm run bench:host-work` or the model server's metrics and pass
 * `--host-ms-per-request` to `plan`, or `hostCpuMsPerRequest` in your profile.
 */
import type { ActivationKind } from './memory';

/** A default host CPU cost and why. */
export interface HostCpuDefault {
  /** Milliseconds of one vCPU per request. */
  readonly ms: number;
  /** Where the figure comes from. */
  readonly source: string;
}

/** The model server's own per-request work in the worker, beside the handler's. */
const WORKER_OVERHEAD =
  'the model server adds about 0.1 ms in the worker (npm run bench:serving-overhead: 0.52 ms of server CPU per ' +
  'single-input request at batch 1 on an idle 2-core host, 2026-11-23, of which the front end modelled apart takes 0.43 ms)';

/**
 * Host CPU per request by kind of input, with where each figure comes from.
 */
export const HOST_CPU_DEFAULTS: Readonly<Record<ActivationKind, HostCpuDefault>> = {
  textSeq128: {
    ms: 1,
    source:
      'partly measured default for text at sequence length 128; ' +
      `${WORKER_OVERHEAD}; tokenizing one 128-token sequence with a Rust-backed Hugging Face fast tokenizer, as the ` +
      'example handler does, takes well under 0.5 ms (the tokenizers README: under 20 s per GB of text; not measurable ' +
      'here, the library is not installed); JSON in and out about 0.1 ms. About 0.7 ms, rounded up to 1 ms.',
  },
  image224: {
    ms: 3,
    source:
      'measured default for one 224x224 image (npm run bench:host-work, 2026-11-25); ' +
      'parsing the JSON, decoding the base64 and a typical 500x375 JPEG photo with Pillow, resizing and normalising it ' +
      'to a 224x224 tensor with numpy as ViTImageProcessor does, and writing 1000 logits as JSON took 2.71 ms of CPU ' +
      'per request (least disturbed of 7 rounds, median 2.84 ms; torchvision Resize+CenterCrop: 3.19, median 3.43) on a ' +
      'shared 2-core AMD EPYC host at load average 8.6, where single noisy runs read up to 4.7 ms; ' +
      `${WORKER_OVERHEAD}. About 2.8 ms, rounded up to 3 ms. A progressive JPEG decodes ten times slower ` +
      '(1169x584: 27-30 ms): measure your own images.',
  },
  imageLarge: {
    ms: 30,
    source:
      'estimate backed by one measurement for large images or video clips (608x608 detection, pose estimation, a ' +
      '16-frame clip); npm run bench:host-work (2026-11-25) took 27-30 ms of CPU for one 1169x584 progressive JPEG ' +
      'decoded and brought to 224x224, and ten times the 224x224 figure covers several times its pixels plus larger ' +
      'outputs (boxes, heat maps) to serialise. 30 ms.',
  },
  diffusion: {
    ms: 100,
    source:
      'UNVERIFIED estimate for image generation; tokenizing the prompt is cheap, but encoding the ' +
      'generated image (PNG of up to 1024x1024, a few MB) and base64-encoding it costs tens of milliseconds. 100 ms ' +
      'is small next to the seconds of device time per image.',
  },
};
