"""The cdk-inferentia wrapper of the AWS Neuron vLLM container: launcher, engine metrics exporter, entrypoint."""
