"""Evidence bundles: a published leaderboard and everything it rests on, in one zip file
that anyone can check without access to the instance (see `verify`)."""
