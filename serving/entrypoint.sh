#!/bin/sh
# Container entrypoint: start as the Neuron DLC does, then run the model server.
set -e
# The DLC's own entrypoint runs this first (aws/deep-learning-containers, neuron-entrypoint.py): it starts
# neuron-monitor -> CloudWatch when NEURON_MONITOR_CW_REGION is set, and returns.
if [ -x /usr/local/bin/neuron-monitor.sh ]; then
  /usr/local/bin/neuron-monitor.sh
fi
# SageMaker starts the container as `<image> serve`; ECS/EC2 may pass nothing. Any other command runs as given.
case "${1:-serve}" in
  serve) exec python3 -m serving ;;
  *) exec "$@" ;;
esac
