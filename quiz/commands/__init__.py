"""The subcommands of `quiz`, one module each; imported only when that command runs."""
