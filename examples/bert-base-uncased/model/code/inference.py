"""Handler for bert-base-uncased compiled with torch_neuronx (Inf2/Trn1), for both servers that can run it.

- The project's model server (`serving/`): each worker owns the NeuronCores in its NEURON_RT_VISIBLE_CORES and calls
  model_fn once; input_fn runs per request and returns that request's sentences; the server joins the sentences of
  several requests into one batch of at most MODEL_SERVER_MAX_BATCH_SIZE (<= MODEL_BATCH_SIZE) and calls predict_fn
  once for all of them; each request's rows go to its own output_fn.
- The Neuron DLC's stock SageMaker PyTorch toolkit: the same functions, with predict_fn getting one request's
  sentences at a time (the toolkit runs TorchServe's aggregated requests one by one).

predict_fn therefore takes a list of 1 to MODEL_BATCH_SIZE sentences, from one request or many, and pads it to the
compiled batch: the device always runs the shape it was compiled for, and the padding's rows are dropped.

Request:  {"inputs": "one sentence"} or {"inputs": ["up to MODEL_BATCH_SIZE sentences", ...]}
Response: {"outputs": [[...first output row of each input...], ...]}
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
    """One device call for a batch of sentences (one request's or several requests'), in order."""
    model, tokenizer = model_and_tokenizer
    if len(texts) > BATCH_SIZE:
        raise ValueError(f"a batch of {len(texts)} sentences exceeds MODEL_BATCH_SIZE={BATCH_SIZE}, the compiled batch")
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
