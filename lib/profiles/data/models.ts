/**
 * What the memory estimate needs to know about each built-in model: its parameter count (with the source of that
 * count) and the kind of input it takes.
 *
 * Parameter counts are of everything one serving process loads: for image-generation pipelines that is every part
 * (text encoders, UNet or transformer, VAE, safety checker). Counts marked UNVERIFIED are rounded-up guesses where no
 * authoritative figure was found; they only feed the memory estimate.
 */
import type { ActivationKind } from '../memory';

/** Facts about one built-in model. */
export interface ModelFacts {
  /** One line about the model. */
  readonly description: string;
  /** Parameters one process loads. */
  readonly params: number;
  /** Where the parameter count comes from. */
  readonly paramsSource: string;
  /** Kind of input, selecting the activation allowance. */
  readonly activation: ActivationKind;
  /**
   * One sample's output tensor in MiB, when large enough to matter for memory (see `estimateMemory`).
   *
   * @default 0
   */
  readonly outputMiBPerSample?: number;
}

const M = 1e6;
const B = 1e9;

const BERT_PAPER = 'BERT paper (Devlin et al. 2018), BERT-Base 110M / BERT-Large 340M';
const DISTILBERT_PAPER = 'DistilBERT paper (Sanh et al. 2019), 66M';
const TORCHVISION = 'torchvision model docs (ImageNet weights table)';
const PERCEIVER =
  'Perceiver IO paper (Jaegle et al. 2021) ImageNet models are about 48-63M; 65M used as an upper bound (UNVERIFIED)';
const SD2 =
  'SD 2 model card: 865M UNet + 354M OpenCLIP-ViT/H text encoder + 84M VAE (sum rounded up, UNVERIFIED)';
const PIXART_BF16 =
  '0.6B transformer (PixArt paper) + 4.76B T5-v1.1-XXL encoder + 84M VAE; the table says "FP32, BF16" and the Neuron ' +
  'sample loads it in bfloat16 (aws-neuron-samples hf_pretrained_pixart_*_inference_on_inf2.ipynb, DTYPE = torch.bfloat16)';

/** Facts per profile id. */
export const MODEL_FACTS: Readonly<Record<string, ModelFacts>> = {
  // Encoders, sequence length 128.
  'albert-base-v2': { description: 'ALBERT base v2 encoder (Hugging Face), sequence length 128', params: 12 * M, paramsSource: 'ALBERT paper (Lan et al. 2019) Table 1, base 12M', activation: 'textSeq128' },
  'bert-base-cased': { description: 'BERT base cased encoder (Hugging Face), sequence length 128', params: 110 * M, paramsSource: BERT_PAPER, activation: 'textSeq128' },
  'bert-base-cased-finetuned-mrpc': { description: 'BERT base cased fine-tuned on MRPC, sequence classification, sequence length 128', params: 110 * M, paramsSource: BERT_PAPER, activation: 'textSeq128' },
  'bert-base-uncased': { description: 'BERT base uncased encoder (Hugging Face), sequence length 128', params: 110 * M, paramsSource: BERT_PAPER, activation: 'textSeq128' },
  'bert-large-cased': { description: 'BERT large cased encoder (Hugging Face), sequence length 128', params: 340 * M, paramsSource: BERT_PAPER, activation: 'textSeq128' },
  'bert-large-uncased': { description: 'BERT large uncased encoder (Hugging Face), sequence length 128', params: 340 * M, paramsSource: BERT_PAPER, activation: 'textSeq128' },
  'camembert-base': { description: 'CamemBERT base encoder (Hugging Face), sequence length 128', params: 110 * M, paramsSource: 'camembert-base model card, 110M', activation: 'textSeq128' },
  'distilbert-base-cased': { description: 'DistilBERT base cased encoder (Hugging Face), sequence length 128', params: 66 * M, paramsSource: DISTILBERT_PAPER, activation: 'textSeq128' },
  'distilbert-base-cased-distilled-squad': { description: 'DistilBERT base cased distilled on SQuAD, sequence length 128', params: 66 * M, paramsSource: DISTILBERT_PAPER, activation: 'textSeq128' },
  'distilbert-base-uncased': { description: 'DistilBERT base uncased encoder (Hugging Face), sequence length 128', params: 66 * M, paramsSource: DISTILBERT_PAPER, activation: 'textSeq128' },
  'google/electra-base-discriminator': { description: 'ELECTRA base discriminator (Hugging Face), sequence length 128', params: 110 * M, paramsSource: 'ELECTRA paper (Clark et al. 2020), Base 110M', activation: 'textSeq128' },
  'roberta-base': { description: 'RoBERTa base encoder (Hugging Face), sequence length 128', params: 125 * M, paramsSource: 'roberta-base model card / fairseq RoBERTa README, 125M', activation: 'textSeq128' },
  'roberta-large': { description: 'RoBERTa large encoder (Hugging Face), sequence length 128', params: 355 * M, paramsSource: 'roberta-large model card / fairseq RoBERTa README, 355M', activation: 'textSeq128' },
  // The tables run it as AutoModelForMaskedLM: 128 tokens x 250,002 vocabulary logits x 4 B = 122.07 MiB of output per
  // sequence (vocabulary size from the xlm-roberta-base config on Hugging Face).
  'xlm-roberta-base': { description: 'XLM-RoBERTa base with its masked-LM head (Hugging Face), sequence length 128', params: 270 * M, paramsSource: 'XLM-R paper (Conneau et al. 2019), Base 270M', activation: 'textSeq128', outputMiBPerSample: (128 * 250002 * 4) / 1024 ** 2 },
  'distilroberta-base': { description: 'DistilRoBERTa base encoder (Hugging Face), sequence length 128', params: 82 * M, paramsSource: 'distilroberta-base model card, 82M', activation: 'textSeq128' },
  'distilbert SST-2 (TF 2.10)': { description: 'DistilBERT fine-tuned on SST-2, TensorFlow 2.10, Inf1', params: 67 * M, paramsSource: 'distilbert-base-uncased-finetuned-sst-2-english model card, 67M', activation: 'textSeq128' },
  'BERT base (NeuronCore Pipeline)': { description: 'BERT base compiled as a NeuronCore Pipeline over 16 Inf1 cores', params: 110 * M, paramsSource: BERT_PAPER, activation: 'textSeq128' },

  // Vision, 224x224 unless noted.
  'deepmind/multimodal-perceiver': { description: 'Perceiver IO multimodal autoencoding (16x224x224 video + audio)', params: 100 * M, paramsSource: 'no published count found; 100M assumed (UNVERIFIED)', activation: 'imageLarge' },
  'deepmind/vision-perceiver-conv': { description: 'Perceiver IO image classification, conv preprocessing', params: 65 * M, paramsSource: PERCEIVER, activation: 'image224' },
  'deepmind/vision-perceiver-fourier': { description: 'Perceiver IO image classification, Fourier position embeddings', params: 65 * M, paramsSource: PERCEIVER, activation: 'image224' },
  'deepmind/vision-perceiver-learned': { description: 'Perceiver IO image classification, learned position embeddings', params: 65 * M, paramsSource: PERCEIVER, activation: 'image224' },
  'google/vit-base-patch16-224': { description: 'ViT-Base/16 image classification', params: 86 * M, paramsSource: 'ViT paper (Dosovitskiy et al. 2020) Table 1, ViT-Base 86M', activation: 'image224' },
  'openai/clip-vit-base-patch32': { description: 'CLIP ViT-B/32 (text and image towers)', params: 151 * M, paramsSource: 'openai/clip-vit-base-patch32 on Hugging Face, 151M', activation: 'image224' },
  'openai/clip-vit-large-patch14': { description: 'CLIP ViT-L/14 (text and image towers)', params: 428 * M, paramsSource: 'openai/clip-vit-large-patch14 on Hugging Face, 428M', activation: 'image224' },
  UNet: { description: 'UNet image segmentation, 224x224', params: 31 * M, paramsSource: 'milesial/Pytorch-UNet, about 31M (the UNet of the Neuron UNet sample; UNVERIFIED that the table used it)', activation: 'image224' },
  resnet18: { description: 'torchvision ResNet-18 image classification', params: 11.7 * M, paramsSource: TORCHVISION, activation: 'image224' },
  resnet34: { description: 'torchvision ResNet-34 image classification', params: 21.8 * M, paramsSource: TORCHVISION, activation: 'image224' },
  resnet50: { description: 'torchvision ResNet-50 image classification', params: 25.6 * M, paramsSource: TORCHVISION, activation: 'image224' },
  resnet101: { description: 'torchvision ResNet-101 image classification', params: 44.5 * M, paramsSource: TORCHVISION, activation: 'image224' },
  resnet152: { description: 'torchvision ResNet-152 image classification', params: 60.2 * M, paramsSource: TORCHVISION, activation: 'image224' },
  vgg11: { description: 'torchvision VGG-11 image classification', params: 132.9 * M, paramsSource: TORCHVISION, activation: 'image224' },
  vgg16: { description: 'torchvision VGG-16 image classification', params: 138.4 * M, paramsSource: TORCHVISION, activation: 'image224' },
  'ResNet-50 (TF 1.15, fp16)': { description: 'ResNet-50, TensorFlow 1.15, fp16, Inf1', params: 25.6 * M, paramsSource: 'ResNet paper (He et al. 2015), 25.6M', activation: 'image224' },
  'YOLOv4 (PT 1.13)': { description: 'YOLOv4 object detection, PyTorch 1.13, Inf1', params: 64 * M, paramsSource: 'yolov4.weights is about 245 MB of fp32, about 64M (UNVERIFIED)', activation: 'imageLarge' },
  'OpenPose (TF 1.15, fp16)': { description: 'OpenPose pose estimation, TensorFlow 1.15, fp16, Inf1', params: 52 * M, paramsSource: 'OpenPose COCO body model, 200 MB caffemodel, about 52M (UNVERIFIED)', activation: 'imageLarge' },

  // Image generation pipelines, batch 1.
  'Stable Diffusion 1.5': { description: 'Stable Diffusion 1.5 pipeline, 512x512', params: 1.371 * B, paramsSource: 'SD 1.5 model card: 860M UNet + 123M text encoder; + 84M VAE + 304M CLIP ViT-L safety checker', activation: 'diffusion' },
  'Stable Diffusion 2 Inpainting': { description: 'Stable Diffusion 2 inpainting pipeline, 936x624', params: 1.31 * B, paramsSource: SD2, activation: 'diffusion' },
  'Stable Diffusion 2.1 (512x512)': { description: 'Stable Diffusion 2.1 pipeline, 512x512', params: 1.31 * B, paramsSource: SD2, activation: 'diffusion' },
  'Stable Diffusion 2.1 (768x768)': { description: 'Stable Diffusion 2.1 pipeline, 768x768', params: 1.31 * B, paramsSource: SD2, activation: 'diffusion' },
  'Stable Diffusion XL Base': { description: 'Stable Diffusion XL 1.0 base pipeline, 1024x1024', params: 3.5 * B, paramsSource: 'Stability AI SDXL 1.0 announcement: 3.5B parameter base model', activation: 'diffusion' },
  'Stable Diffusion XL Base & Refiner': { description: 'Stable Diffusion XL 1.0 base + refiner pipeline, 1024x1024', params: 6.6 * B, paramsSource: 'Stability AI SDXL 1.0 announcement: 6.6B parameter ensemble pipeline', activation: 'diffusion' },
  'PixArt Alpha (256x256)': { description: 'PixArt-alpha pipeline, 256x256', params: 5.45 * B, paramsSource: PIXART_BF16, activation: 'diffusion' },
  'PixArt Alpha (512x512)': { description: 'PixArt-alpha pipeline, 512x512', params: 5.45 * B, paramsSource: PIXART_BF16, activation: 'diffusion' },
  'PixArt Sigma (256x256)': { description: 'PixArt-sigma pipeline, 256x256', params: 5.45 * B, paramsSource: PIXART_BF16, activation: 'diffusion' },
  'PixArt Sigma (512x512)': { description: 'PixArt-sigma pipeline, 512x512', params: 5.45 * B, paramsSource: PIXART_BF16, activation: 'diffusion' },
};
