"""cdk-inferentia model server: dynamic batching over one worker process per NeuronCore group (see README.md)."""
