from xlssd.cli import command

command()
