"""Picklable players for isolation tests (a child process imports them by name)."""


class Spinner:
    def ask(self):
        return 7

    def spin(self):
        while True:
            pass


class Toy:
    def divide(self, a, b):
        return a // b
