"""Stand-in: importing torch_neuronx registers nothing here (see ../README.md)."""
