"""``cerebras.modelzoo.common``: the helpers Model Zoo data processors import
(``input_utils.get_streaming_batch_size``, ``pytorch_utils.SampleGenerator``, ...)."""
