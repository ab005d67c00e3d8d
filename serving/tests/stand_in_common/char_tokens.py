"""The one-token-per-character tokenizer both framework stand-ins use (frameworks/ and compile_frameworks/ put this
folder on PYTHONPATH beside their own): [CLS]=101, each character's code point, [SEP]=102, zero-padded."""
import numpy


def encode(texts, max_length):
    """Returns (input_ids, attention_mask), int64 arrays of shape (len(texts), max_length)."""
    ids = numpy.zeros((len(texts), max_length), dtype=numpy.int64)
    mask = numpy.zeros((len(texts), max_length), dtype=numpy.int64)
    for row, text in enumerate(texts):
        tokens = [101, *(ord(c) for c in text)][: max_length - 1] + [102]
        ids[row, : len(tokens)] = tokens
        mask[row, : len(tokens)] = 1
    return ids, mask
