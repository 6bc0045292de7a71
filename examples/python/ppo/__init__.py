"""The parts of the masked-PPO trainer examples/python/ppo_masked.py (its entry point: command line, training loop,
outputs): config (hyperparameters, env options), agent (the networks), rollout (collecting experience, also as Ray
actors), update (the PPO step), evaluate (held-out episodes), curve (curve.csv rows), processes (the child processes
the trainer runs). Importable once examples/python and bridge/python are on sys.path, as ppo_masked.py puts them."""
