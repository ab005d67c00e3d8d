"""The launcher's NeuronCore check: a copy that sees fewer cores than its tensor-parallel degree stops before loading."""
import unittest

from serving.vllm.launch import core_problem, count_cores, tensor_parallel_size, visible_cores

NO_TOOL = {"neuron_ls": lambda: None}


class CoreCheckTest(unittest.TestCase):
    def test_counts_visible_core_ranges(self):
        self.assertEqual(count_cores("0-3,8"), 5)
        self.assertEqual(count_cores("7"), 1)

    def test_reads_the_tensor_parallel_degree_in_both_spellings(self):
        self.assertEqual(tensor_parallel_size(["m", "--tensor-parallel-size=16"]), 16)
        self.assertEqual(tensor_parallel_size(["m", "--tensor-parallel-size", "8"]), 8)
        self.assertEqual(tensor_parallel_size(["m"]), 1)

    def test_a_trn2_copy_given_one_chip_for_tp16_names_the_setting_and_both_counts(self):
        # GIVEN SageMaker counted chips (1 device) while the plan needs 16 logical cores (4 Trn2 chips at LNC=2)
        problem = core_problem(["m", "--tensor-parallel-size=16"], {}, neuron_ls=lambda: 4)
        self.assertIn("sees 4 NeuronCores (neuron-ls) but --tensor-parallel-size=16 needs 16", problem)
        self.assertIn("NumberOfAcceleratorDevicesRequired", problem)

    def test_an_inf2_copy_with_its_cores_passes(self):
        self.assertIsNone(core_problem(["m", "--tensor-parallel-size=8"], {"NEURON_RT_VISIBLE_CORES": "0-7"}, **NO_TOOL))

    def test_device_files_count_when_neuron_ls_is_absent(self):
        seen, how = visible_cores({"CDK_INFERENTIA_CORES_PER_DEVICE": "2"}, neuron_ls=lambda: None,
                                  devices=lambda: ["/dev/neuron0", "/dev/neuron1"])
        self.assertEqual((seen, how), (4, "2 /dev/neuron devices x 2 cores"))
        self.assertIn("sees 4 NeuronCores", core_problem(["m", "--tensor-parallel-size=8"], {"CDK_INFERENTIA_CORES_PER_DEVICE": "2"},
                                                          neuron_ls=lambda: None, devices=lambda: ["/dev/neuron0", "/dev/neuron1"]))

    def test_nothing_to_count_does_not_block_the_engine(self):
        self.assertIsNone(core_problem(["m", "--tensor-parallel-size=8"], {}, neuron_ls=lambda: None, devices=lambda: []))


if __name__ == "__main__":
    unittest.main()
