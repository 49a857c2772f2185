"""The platform's games other than Farlight itself, one package each."""
