"""The hostile-model property suite: a generator plays the model against a real `acp` over real
pipes, a user stand-in answers its questions by a policy, and the invariants of consent are
checked after every step (tests/hostile/test_hostile.py says what it plays and checks)."""
