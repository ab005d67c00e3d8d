"""SageMaker PyTorch toolkit handler for bert-base-uncased compiled with torch_neuronx (Inf2/Trn1).

The Neuron DLC's toolkit imports this module from /opt/ml/model/code and calls model_fn once per TorchServe
worker, then input_fn -> predict_fn -> output_fn per request. Each worker owns NEURON_RT_NUM_CORES NeuronCores,
so loading the traced model here places it on that worker's cores.

Request:  {"inputs": "one sentence"} or {"inputs": ["up to MODEL_BATCH_SIZE sentences", ...]}
Response: {"outputs": [[...first output row of each input...], ...]}

The model is compiled for a fixed batch (the plan's batch size) and sequence length; a request with fewer inputs
is padded to the compiled batch, so the device always runs the shape it was compiled for.
"""
import json
import os

import torch
import torch_neuronx  # noqa: F401  (registers the Neuron ops torch.jit.load needs)
from transformers import AutoTokenizer

BATCH_SIZE = int(os.environ.get("MODEL_BATCH_SIZE", "1"))
SEQUENCE_LENGTH = int(os.environ.get("MODEL_SEQUENCE_LENGTH", "128"))


def model_fn(model_dir):
    path = os.path.join(model_dir, "model.pt")
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"{path} is missing: compile the model with torch_neuronx.trace and put model.pt and the tokenizer "
            "files in the model directory (see examples/bert-base-uncased/README.md)"
        )
    model = torch.jit.load(path)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    return model, tokenizer


def input_fn(body, content_type):
    if not content_type.startswith("application/json"):
        raise ValueError(f"content type {content_type} is not supported; send application/json")
    inputs = json.loads(body)["inputs"]
    texts = [inputs] if isinstance(inputs, str) else list(inputs)
    if not 1 <= len(texts) <= BATCH_SIZE:
        raise ValueError(f"send 1 to {BATCH_SIZE} inputs per request, got {len(texts)}")
    return texts


def predict_fn(texts, model_and_tokenizer):
    model, tokenizer = model_and_tokenizer
    padded = texts + [""] * (BATCH_SIZE - len(texts))
    encoded = tokenizer(
        padded, padding="max_length", truncation=True, max_length=SEQUENCE_LENGTH, return_tensors="pt"
    )
    with torch.no_grad():
        output = model(encoded["input_ids"], encoded["attention_mask"])
    first = output[0] if isinstance(output, (tuple, list)) else output
    if first.dim() == 3:
        first = first[:, 0, :]  # [CLS] embedding of a base model's last hidden state
    return first[: len(texts)].tolist()


def output_fn(rows, accept):
    return json.dumps({"outputs": rows}), "application/json"
